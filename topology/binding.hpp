#pragma once
// What the NCCL backend needs to place a worker next to its GPU.
#include <string>
#include <vector>

#include "topology/topology.hpp"

namespace cctune::topo {

// The cpuset (hwloc list form) of the NUMA node of a GPU given by index ("3") or PCI bus
// id; the GPU's own CPU affinity when its NUMA node is unknown. Throws UsageError when
// the node has no such GPU.
std::string gpu_cpuset(const NodeTopology& node, const std::string& gpu);

// Binds the calling process to gpu_cpuset(node, gpu) (hwloc_set_cpubind).
void bind_process_to_gpu(const NodeTopology& node, const std::string& gpu);

// RDMA device names nearest to the GPU, for NCCL_IB_HCA candidates ("mlx5_0", ...).
std::vector<std::string> nearest_nic_names(const NodeTopology& node, const std::string& gpu);

}  // namespace cctune::topo
