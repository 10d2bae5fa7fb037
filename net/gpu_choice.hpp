#pragma once
// Which GPU a rank's probe buffers live on: the one nearest the rank's RDMA device, as
// GPUDirect RDMA is only worth measuring on a short PCIe path. Pure over a topology
// value, so it is tested from fixtures.
#include <string>

#include "topology/topology.hpp"

namespace cctune::net {

// Among the GPUs with the closest PCIe path to RDMA device `nic` (PIX before PXB ...
// before SYS), the (local_index mod their number)-th in GPU order, so ranks whose NICs
// share a switch with several GPUs spread over them. Returns that GPU's PCI bus id, or
// "" when the topology lists no GPU or not this NIC (no NVML, no hwloc): the caller then
// takes CUDA ordinal local_index mod the GPU count.
std::string nearest_gpu_bus_id(const topo::NodeTopology& node, const std::string& nic, int local_index);

}  // namespace cctune::net
