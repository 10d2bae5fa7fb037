#pragma once
// Which (collective, algorithm, protocol, channels) NCCL can run on a communicator; the
// others are skipped with a reason, never run and never failed (nvbench's skip).
// Structural limits mirror NCCL 2.28's own checks (src/enqueue.cc, src/graph/tuning.cc).
// Whether NCCL offers NVLS or CollNet on a communicator is NCCL's to say (its cost table):
// where the plan does not know, the point is planned and the worker skips it at run time
// with NCCL's answer.
#include <map>
#include <string>
#include <vector>

#include "core/collective.hpp"
#include "core/collective_traits.hpp"  // is_tunable: which collectives the plugin steers
#include "core/results.hpp"
#include "tuner/profile/algo_proto.hpp"

namespace cctune::tuner {

// What is known about the communicator a group will run on. 0 / empty: unknown.
struct SpaceContext {
  int nranks = 0;
  int nnodes = 1;
  // Per collective, the algorithms NCCL's cost table offered on this job's communicators
  // (an earlier sweep's runs[].nccl_offered); a collective not listed is unknown.
  std::map<Collective, AlgorithmSet> offered;
  bool caller_disables_nvls = false;  // the caller's environment holds NCCL_NVLS_ENABLE=0
  // The caller's environment holds NCCL_NET=Socket or NCCL_IB_DISABLE=1: traffic between
  // nodes takes NCCL's socket transport whatever NICs there are.
  bool caller_forces_socket = false;
  std::vector<std::string> nearest_nics;  // RDMA devices nearest the GPUs, e.g. mlx5_0
  // Physical IP interfaces that are up on rank 0's node (the topology's net_interfaces), and
  // those of them at the highest known link speed: NCCL_SOCKET_IFNAME candidates.
  std::vector<std::string> ip_interfaces;
  std::vector<std::string> fastest_interfaces;
  // Some GPU of the job's nodes has no NVLink (the topology's derived nvlink_GBps is 0), so
  // GPUs of a node talk over PCIe; false where the topology shows no GPU.
  bool gpus_without_nvlink = false;
  int channel_ceiling = 0;         // channels NCCL's default communicator has; 0 unknown
};

// Empty when NCCL can run it; otherwise why not. `channel_ceiling` is the group's (0 unknown);
// `group_disables_nvls`: the group sets NCCL_NVLS_ENABLE=0.
std::string unsupported_reason(Collective c, const PointConfig& config, const SpaceContext& context, int channel_ceiling,
                               bool group_disables_nvls = false);

}  // namespace cctune::tuner
