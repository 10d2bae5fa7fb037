#pragma once
// Which (collective, algorithm, protocol, channels) NCCL can run on a communicator; the
// others are skipped with a reason, never run and never failed (nvbench's skip).
// Mirrors NCCL 2.28's own checks (src/enqueue.cc, src/graph/tuning.cc).
#include <string>
#include <vector>

#include "core/collective.hpp"
#include "core/results.hpp"

namespace cctune::tuner {

// What is known about the communicator a group will run on. 0 / empty: unknown.
struct SpaceContext {
  int nranks = 0;
  int nnodes = 1;
  bool nvls_enabled = false;       // cctune never enables NVLS; true only if NCCL reports it on
  bool collnet_supported = false;  // a CollNet/SHARP plugin is present
  std::vector<std::string> nearest_nics;  // RDMA devices nearest the GPUs, e.g. mlx5_0
  int channel_ceiling = 0;         // channels NCCL's default communicator has; 0 unknown
};

// Empty when NCCL can run it; otherwise why not. `channel_ceiling` is the group's (0 unknown).
std::string unsupported_reason(Collective c, const PointConfig& config, const SpaceContext& context, int channel_ceiling);

}  // namespace cctune::tuner
