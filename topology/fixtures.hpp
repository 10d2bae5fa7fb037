#pragma once
// Topology from saved files instead of hardware: for tests, and for users who have only
// `nvidia-smi -q` output or an NCCL topology dump (NCCL_TOPO_DUMP_FILE) from a host.
// Every parse error is a one-line UsageError naming the file.
#include <string>
#include <vector>

#include "topology/topology.hpp"

namespace cctune::topo {

// An hwloc XML (`lstopo --of xml`) plus a JSON of device facts in the node format of
// docs/TOPOLOGY.md (gpus, nics, net_interfaces, software; placements are ignored and
// taken from the XML).
NodeTopology load_node_fixture(const std::string& hwloc_xml_path, const std::string& facts_json_path);

struct NvidiaSmiFacts {
  std::vector<Gpu> gpus;   // name, uuid, bus id, memory, PCIe gen/width
  std::string driver;
  std::string cuda;
};
// `text` is the output of `nvidia-smi -q`; `origin` names it in errors.
NvidiaSmiFacts parse_nvidia_smi_q(const std::string& text, const std::string& origin);

// Adds NVLinks from an NCCL topology XML dump to the GPUs with matching bus ids; the
// per-link speed comes from the GPU's SM architecture (sm="90" -> 26.5625 GB/s).
void apply_nccl_topo_xml(const std::string& text, const std::string& origin, std::vector<Gpu>& gpus);

// A node built from `nvidia-smi -q` and an NCCL topology XML of the same host.
NodeTopology node_from_nvidia_smi_and_nccl(const std::string& nvidia_smi_q_path,
                                           const std::string& nccl_topo_xml_path,
                                           const std::string& hostname);

}  // namespace cctune::topo
