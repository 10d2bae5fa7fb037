#include "runtime/worker_setup.hpp"

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

}  // namespace cctune
