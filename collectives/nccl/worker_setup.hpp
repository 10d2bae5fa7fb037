#pragma once
// Pure helpers the worker uses to fill NcclWorkerSetup from the sweep plan (no CUDA).
#include <cstdint>
#include <vector>

#include "collectives/nccl/nccl_module.hpp"
#include "core/collective.hpp"
#include "core/results.hpp"

namespace cctune {

struct NcclBufferBytes {
  std::uint64_t send = 0;
  std::uint64_t recv = 0;
};

// The largest send and receive buffers any point needs (in-place layouts included: they use
// the receive buffer for allreduce/allgather and the send buffer for reducescatter).
NcclBufferBytes nccl_buffer_bytes(const std::vector<Collective>& collectives, const std::vector<std::uint64_t>& sizes,
                                  DType dtype, int nranks);

// NCCL can run a forced channel count only up to the channels its communicator set up at
// init; counts above NCCL's default need ncclConfig_t.minCTAs. Sets min_ctas to the largest
// forced count of the plan (0 when no config forces channels), and raises max_ctas with it
// when the caller had set a smaller one. Note: minCTAs also raises the channels NCCL's own
// "auto" choice can use on that communicator (docs/NCCL_BACKEND.md).
void require_channels(NcclWorkerSetup& setup, const std::vector<PointConfig>& configs);

}  // namespace cctune
