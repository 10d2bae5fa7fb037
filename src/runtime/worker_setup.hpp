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

}  // namespace cctune
