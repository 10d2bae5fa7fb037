#include "collectives/nccl/worker_setup.hpp"

#include <algorithm>

namespace cctune {

NcclBufferBytes nccl_buffer_bytes(const std::vector<Collective>& collectives, const std::vector<std::uint64_t>& sizes,
                                  DType dtype, int nranks) {
  NcclBufferBytes need;
  const std::uint64_t w = dtype_size(dtype);
  for (Collective c : collectives)
    for (std::uint64_t size : sizes) {
      const CollectiveBytes b = collective_bytes(c, size, dtype, nranks);
      need.send = std::max(need.send, b.send_count * w);
      need.recv = std::max(need.recv, b.recv_count * w);
    }
  return need;
}

void require_channels(NcclWorkerSetup& setup, const std::vector<PointConfig>& configs) {
  int most = 0;
  for (const PointConfig& c : configs) most = std::max(most, c.channels);
  if (most <= 0) return;
  setup.min_ctas = std::max(setup.min_ctas, most);
  if (setup.max_ctas > 0 && setup.max_ctas < setup.min_ctas) setup.max_ctas = setup.min_ctas;
}

}  // namespace cctune
