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
  // NCCL 2.28 rejects a config with minCTAs set and maxCTAs left undefined ("Invalid config
  // min/max channels attribute value 32/-2147483648", seen on H200), so both are set.
  if (setup.max_ctas < setup.min_ctas) setup.max_ctas = setup.min_ctas;
}

}  // namespace cctune
