#include "topology/node_probe.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include "topology/nvml_probe.hpp"
#include "topology/rdma_probe.hpp"

namespace cctune::topo {

namespace {

const PciPlacement* placement_for(const HwlocFacts& hw, const std::string& bus_id) {
  auto it = hw.placements.find(bus_id);
  return it == hw.placements.end() ? nullptr : &it->second;
}

std::string osdev_bus_id(const HwlocFacts& hw, const std::string& name, const std::string& type) {
  for (const auto& d : hw.os_devices)
    if (d.name == name && d.type == type) return d.pci_bus_id;
  return {};
}

}  // namespace

void apply_hwloc(const HwlocFacts& hw, NodeTopology& node) {
  node.cpu = hw.cpu;
  node.numa_nodes = hw.numa_nodes;
  node.software.hwloc = hw.version;
  if (node.software.kernel.empty()) node.software.kernel = hw.kernel;
  for (auto& g : node.gpus) {
    if (const auto* p = placement_for(hw, g.pci_bus_id)) g.placement = *p;
    if (g.numa_node < 0) g.numa_node = g.placement.numa_node;
    g.placement.numa_node = g.numa_node;
    if (g.cpu_affinity.empty())
      for (const auto& n : node.numa_nodes)
        if (n.os_index == g.numa_node) g.cpu_affinity = n.cpuset;
  }
  for (auto& n : node.nics) {
    if (n.pci_bus_id.empty()) n.pci_bus_id = osdev_bus_id(hw, n.name, "openfabrics");
    if (const auto* p = placement_for(hw, n.pci_bus_id)) n.placement = *p;
  }
  for (auto& i : node.net_interfaces) {
    if (i.pci_bus_id.empty()) i.pci_bus_id = osdev_bus_id(hw, i.name, "network");
    if (const auto* p = placement_for(hw, i.pci_bus_id)) i.placement = *p;
  }
}

std::string local_hostname() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "localhost";
  return buf;
}

NodeTopology probe_local_node() {
  NodeTopology node;
  node.hostname = local_hostname();
  node.source = "live";
  utsname u{};
  if (uname(&u) == 0) node.software.kernel = u.release;

  NvmlFacts gpu = probe_nvml();
  node.gpus = std::move(gpu.gpus);
  node.software.driver = gpu.driver;
  node.software.cuda_driver = gpu.cuda_driver;

  RdmaFacts rdma = probe_rdma();
  node.nics = std::move(rdma.nics);
  node.net_interfaces = probe_net_interfaces();

  std::string nccl_reason;
  node.software.nccl = probe_nccl_version(nccl_reason);

  HwlocFacts hw = read_hwloc_system();
  apply_hwloc(hw, node);

  if (node.gpus.empty()) {
    std::string reason = gpu.absent_reason.empty() ? "NVML reports 0 GPUs" : gpu.absent_reason;
    if (!hw.nvidia_gpus.empty())
      reason += "; note: the PCI bus shows " + std::to_string(hw.nvidia_gpus.size()) + " NVIDIA GPU(s)";
    node.absences.push_back({"gpu", reason});
  }
  if (node.nics.empty()) node.absences.push_back({"rdma", rdma.absent_reason});
  if (node.software.nccl.empty()) node.absences.push_back({"nccl", nccl_reason});
  return node;
}

}  // namespace cctune::topo
