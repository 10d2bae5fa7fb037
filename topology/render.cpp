#include "topology/render.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/units.hpp"
#include "topology/paths.hpp"

namespace cctune::topo {

namespace {

std::string or_unknown(const std::string& s) { return s.empty() ? "unknown" : s; }

std::string gbps(double v) { return v > 0 ? fmt::format("{:.1f} GB/s", v) : "unknown"; }

// "25 Gb/s", or with a tc shaper on it "10 Gb/s, shaped to 0.4 Gb/s" (the link carries the latter).
std::string interface_rate(const NetInterface& i) {
  std::string s = i.speed_Gbps > 0 ? fmt::format("{:g} Gb/s", i.speed_Gbps) : "speed n/a";
  return i.shaped_Gbps > 0 ? s + fmt::format(", shaped to {:g} Gb/s", i.shaped_Gbps) : s;
}

std::string absence(const NodeTopology& node, const std::string& component) {
  for (const auto& a : node.absences)
    if (a.component == component) return a.reason;
  return {};
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

}  // namespace

void render_matrix(const NodeTopology& node, std::ostream& out) {
  PathMatrix m = path_matrix(node);
  if (m.names.empty()) return;
  std::string header = fmt::format("{:<8}", "");
  for (const auto& n : m.names) header += fmt::format("{:<6}", n);
  out << header << fmt::format("{:<16}{}\n", "CPU Affinity", "NUMA Affinity");
  for (std::size_t r = 0; r < m.names.size(); ++r) {
    std::string line = fmt::format("{:<8}", m.names[r]);
    for (const auto& p : m.paths[r]) line += fmt::format("{:<6}", p.label());
    if (static_cast<int>(r) < m.gpu_count) {
      const Gpu& g = node.gpus[r];
      line += fmt::format("{:<16}{}", or_unknown(g.cpu_affinity), g.numa_node >= 0 ? std::to_string(g.numa_node) : "N/A");
    } else {
      int numa = node.nics[r - m.gpu_count].placement.numa_node;
      line += fmt::format("{:<16}{}", "", numa >= 0 ? std::to_string(numa) : "N/A");
    }
    out << line << "\n";
  }
  out << "\nLegend:\n"
         "  X    = Self\n"
         "  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)\n"
         "  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node\n"
         "  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)\n"
         "  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)\n"
         "  PIX  = Connection traversing at most a single PCIe bridge\n"
         "  NV#  = Connection traversing a bonded set of # NVLinks\n";
  if (!node.nics.empty()) {
    out << "\nNIC Legend:\n";
    for (std::size_t i = 0; i < node.nics.size(); ++i) out << fmt::format("  NIC{}: {}\n", i, node.nics[i].name);
  }
  out << "\n";
}

void render_node(const NodeTopology& node, std::ostream& out) {
  out << fmt::format("Node {} ({})\n", node.hostname, or_unknown(node.source));
  if (node.cpu.pus > 0)
    out << fmt::format("  CPU: {}, {} package(s), {} cores, {} CPUs ({})\n", or_unknown(node.cpu.model),
                       node.cpu.packages, node.cpu.cores, node.cpu.pus, or_unknown(node.cpu.cpuset));
  else
    out << "  CPU: not recorded in this topology\n";
  for (const auto& n : node.numa_nodes)
    out << fmt::format("  NUMA node {}: CPUs {}, memory {}\n", n.os_index, or_unknown(n.cpuset), format_size(n.memory_bytes));
  out << fmt::format("  Software: kernel {}, hwloc {}, NVIDIA driver {}, CUDA driver {}, NCCL {}\n",
                     or_unknown(node.software.kernel), or_unknown(node.software.hwloc), or_unknown(node.software.driver),
                     or_unknown(node.software.cuda_driver), or_unknown(node.software.nccl));
  out << "\n";
  render_matrix(node, out);

  if (node.gpus.empty())
    out << "  GPUs: none found: " << (absence(node, "gpu").empty() ? "none recorded" : absence(node, "gpu")) << "\n";
  else
    out << "  GPUs (limits per direction):\n";
  for (const auto& g : node.gpus) {
    int active = static_cast<int>(std::count_if(g.nvlinks.begin(), g.nvlinks.end(), [](auto& l) { return l.active; }));
    double link_speed = active ? gpu_nvlink_GBps(g) / active : 0;
    std::string nvlink = active ? fmt::format("NVLink {} x {:.4g} GB/s = {:.1f} GB/s", active, link_speed, gpu_nvlink_GBps(g))
                                : "no NVLink";
    std::string pcie = g.pcie_generation ? fmt::format("PCIe gen{} x{} = {}", g.pcie_generation, g.pcie_width, gbps(gpu_pcie_GBps(g)))
                                         : "PCIe unknown";
    std::vector<std::string> near = nearest_nics(node, g);
    out << fmt::format("    GPU{} {} {} {}, NUMA {}: {}; {}; nearest NICs: {}\n", g.index, g.name, g.pci_bus_id,
                       format_size(g.memory_bytes), g.numa_node >= 0 ? std::to_string(g.numa_node) : "N/A", nvlink, pcie,
                       near.empty() ? "none" : join(near, ","));
  }
  if (node.nics.empty())
    out << "  RDMA devices: none found: " << (absence(node, "rdma").empty() ? "none recorded" : absence(node, "rdma")) << "\n";
  else
    out << "  RDMA devices:\n";
  for (std::size_t i = 0; i < node.nics.size(); ++i) {
    const Nic& n = node.nics[i];
    for (const auto& p : n.ports)
      out << fmt::format("    NIC{} {} port {}: {} {} {:g} Gb/s ({} lanes) = {}{}; PCIe {}\n", i, n.name, p.port, p.state,
                         p.link_layer == "Ethernet" ? "RoCE" : p.link_layer, p.rate_Gbps, p.width_lanes, gbps(port_GBps(p)),
                         p.netdev.empty() ? "" : ", netdev " + p.netdev, gbps(n.placement.link_GBps));
  }
  if (node.software.nccl.empty() && !absence(node, "nccl").empty())
    out << "  NCCL: not found: " << absence(node, "nccl") << "\n";
  out << "  Network interfaces:\n";
  if (node.net_interfaces.empty()) out << "    none\n";
  for (const auto& i : node.net_interfaces)
    out << fmt::format("    {:<12} {:<8} {:<12} mtu {:<6} {}{}\n", i.name, i.operstate,
                       interface_rate(i), i.mtu,
                       i.is_virtual ? "virtual" : "PCI " + i.pci_bus_id,
                       i.rdma_device.empty() ? "" : ", RDMA " + i.rdma_device);

  // The fastest path of each kind between devices of this node.
  double best_nv = 0, best_pcie = 0, best_nic = 0;
  std::string best_nv_label;
  for (const auto& a : node.gpus) {
    for (const auto& b : node.gpus) {
      if (a.index == b.index) continue;
      double lim = gpu_gpu_limit_GBps(a, b);
      if (nvlinks_between(a, b) > 0 && lim > best_nv) best_nv = lim, best_nv_label = gpu_gpu_path(a, b).label();
      if (nvlinks_between(a, b) == 0) best_pcie = std::max(best_pcie, lim);
    }
    for (const auto& n : node.nics) best_nic = std::max(best_nic, gpu_nic_limit_GBps(a, n));
  }
  if (!node.gpus.empty()) {
    out << "  Limits per direction:\n";
    if (best_nv > 0) out << fmt::format("    GPU<->GPU over NVLink ({}): {}\n", best_nv_label, gbps(best_nv));
    if (best_pcie > 0) out << fmt::format("    GPU<->GPU over PCIe: {}\n", gbps(best_pcie));
    if (best_nic > 0) out << fmt::format("    GPU<->NIC (GPUDirect RDMA): {}\n", gbps(best_nic));
  }
  out << "\n";
}

void render_topology(const Topology& t, std::ostream& out) {
  for (const auto& g : t.groups) {
    auto it = std::find_if(t.nodes.begin(), t.nodes.end(), [&](auto& n) { return n.hostname == g.hosts.front(); });
    if (it != t.nodes.end()) render_node(*it, out);
  }
  if (t.groups.empty())
    for (const auto& n : t.nodes) render_node(n, out);
  out << fmt::format("Cluster: {} node(s) in {} group(s) of identical nodes\n", t.nodes.size(), t.groups.size());
  for (std::size_t i = 0; i < t.groups.size(); ++i)
    out << fmt::format("  group {} (fingerprint {}): {} node(s): {}\n", i + 1, t.groups[i].fingerprint,
                       t.groups[i].hosts.size(), join(t.groups[i].hosts, ", "));
  if (t.warnings.empty()) {
    out << "  no differences between nodes\n";
  } else {
    out << fmt::format("Warnings ({}):\n", t.warnings.size());
    for (const auto& w : t.warnings) out << fmt::format("  warning: {}: {}: {}\n", w.node, w.item, w.message);
  }
}

}  // namespace cctune::topo
