#include "topology/paths.hpp"

#include <algorithm>
#include <array>

namespace cctune::topo {

std::string to_string(PathClass c) {
  switch (c) {
    case PathClass::X: return "X";
    case PathClass::NV: return "NV";
    case PathClass::PIX: return "PIX";
    case PathClass::PXB: return "PXB";
    case PathClass::PHB: return "PHB";
    case PathClass::NODE: return "NODE";
    case PathClass::SYS: return "SYS";
  }
  return "?";
}

std::string Path::label() const {
  return cls == PathClass::NV ? "NV" + std::to_string(nvlinks) : to_string(cls);
}

namespace {

// "0000:1b:00.1" -> "0000:1b:00": functions of one device share its link.
std::string device_of(const std::string& bus_id) {
  auto dot = bus_id.rfind('.');
  return dot == std::string::npos ? bus_id : bus_id.substr(0, dot);
}

}  // namespace

PathClass pci_path_class(const PciPlacement& a, const PciPlacement& b) {
  // Different NUMA nodes (or sockets): the path crosses the SMP interconnect.
  if (a.numa_node >= 0 && b.numa_node >= 0 && a.numa_node != b.numa_node) return PathClass::SYS;
  if (a.package >= 0 && b.package >= 0 && a.package != b.package) return PathClass::SYS;
  if (a.host_bridge.empty() || b.host_bridge.empty() || a.host_bridge != b.host_bridge) {
    // Without NUMA facts we cannot claim the two host bridges share a node.
    return (a.numa_node >= 0 && a.numa_node == b.numa_node) ||
                   (a.numa_node < 0 && b.numa_node < 0 && a.package >= 0 && a.package == b.package)
               ? PathClass::NODE
               : PathClass::SYS;
  }
  if (!a.parent_bridge.empty() && a.parent_bridge == b.parent_bridge) return PathClass::PIX;
  std::size_t common = 0;
  while (common < a.switches.size() && common < b.switches.size() &&
         a.switches[common] == b.switches[common])
    ++common;
  if (common == 0) return PathClass::PHB;
  // Switches traversed: up from a to the lowest common switch, and down to b.
  std::size_t traversed = (a.switches.size() - common) + (b.switches.size() - common) + 1;
  return traversed == 1 ? PathClass::PIX : PathClass::PXB;
}

int nvlinks_between(const Gpu& a, const Gpu& b) {
  int direct = 0, a_switch = 0, b_switch = 0;
  for (const auto& l : a.nvlinks) {
    if (!l.active) continue;
    if (l.remote_type == "switch") ++a_switch;
    else if (l.remote_type == "gpu" && l.remote_pci_bus_id == b.pci_bus_id) ++direct;
  }
  for (const auto& l : b.nvlinks)
    if (l.active && l.remote_type == "switch") ++b_switch;
  return direct + std::min(a_switch, b_switch);
}

Path gpu_gpu_path(const Gpu& a, const Gpu& b) {
  if (a.pci_bus_id == b.pci_bus_id) return {PathClass::X, 0};
  if (int n = nvlinks_between(a, b); n > 0) return {PathClass::NV, n};
  return {pci_path_class(a.placement, b.placement), 0};
}

Path gpu_nic_path(const Gpu& g, const Nic& n) {
  if (device_of(g.pci_bus_id) == device_of(n.pci_bus_id) && !g.pci_bus_id.empty())
    return {PathClass::PIX, 0};
  return {pci_path_class(g.placement, n.placement), 0};
}

Path nic_nic_path(const Nic& a, const Nic& b) {
  if (a.name == b.name) return {PathClass::X, 0};
  if (!a.pci_bus_id.empty() && device_of(a.pci_bus_id) == device_of(b.pci_bus_id))
    return {PathClass::PIX, 0};
  return {pci_path_class(a.placement, b.placement), 0};
}

PathMatrix path_matrix(const NodeTopology& node) {
  PathMatrix m;
  m.gpu_count = static_cast<int>(node.gpus.size());
  for (const auto& g : node.gpus) m.names.push_back("GPU" + std::to_string(g.index));
  for (std::size_t i = 0; i < node.nics.size(); ++i) m.names.push_back("NIC" + std::to_string(i));
  const std::size_t n = m.names.size(), ng = node.gpus.size();
  m.paths.assign(n, std::vector<Path>(n));
  for (std::size_t r = 0; r < n; ++r) {
    for (std::size_t c = 0; c < n; ++c) {
      if (r < ng && c < ng) m.paths[r][c] = gpu_gpu_path(node.gpus[r], node.gpus[c]);
      else if (r < ng) m.paths[r][c] = gpu_nic_path(node.gpus[r], node.nics[c - ng]);
      else if (c < ng) m.paths[r][c] = gpu_nic_path(node.gpus[c], node.nics[r - ng]);
      else m.paths[r][c] = nic_nic_path(node.nics[r - ng], node.nics[c - ng]);
    }
  }
  return m;
}

double pcie_lane_GBps(int generation) {
  // Per lane and direction after encoding: 8b/10b up to gen2, 128b/130b gen3-5,
  // gen6 FLIT mode (242/256 payload).
  static constexpr std::array<double, 7> lane = {0.0, 0.25, 0.5, 8.0 * 128 / 130 / 8,
                                                 16.0 * 128 / 130 / 8, 32.0 * 128 / 130 / 8,
                                                 64.0 * 242 / 256 / 8};
  return generation >= 1 && generation <= 6 ? lane[generation] : 0.0;
}

double gpu_pcie_GBps(const Gpu& g) { return pcie_lane_GBps(g.pcie_generation) * g.pcie_width; }

double gpu_nvlink_GBps(const Gpu& g) {
  double sum = 0;
  for (const auto& l : g.nvlinks)
    if (l.active) sum += l.speed_GBps;
  return sum;
}

double port_GBps(const IbPort& p) { return p.rate_Gbps / 8.0; }

double nic_GBps(const Nic& n) {
  double best = 0;
  for (const auto& p : n.ports)
    if (p.state == "ACTIVE") best = std::max(best, port_GBps(p));
  return best;
}

double effective_Gbps(double speed_Gbps, double shaped_Gbps, bool is_virtual) {
  if (is_virtual && shaped_Gbps > 0) return shaped_Gbps;
  if (speed_Gbps > 0 && shaped_Gbps > 0) return std::min(speed_Gbps, shaped_Gbps);
  return std::max(speed_Gbps, shaped_Gbps);
}

double ip_link_Gbps(const NetInterface& i) { return effective_Gbps(i.speed_Gbps, i.shaped_Gbps, i.is_virtual); }

std::vector<const NetInterface*> ip_links(const NodeTopology& node) {
  const auto up = [](const NetInterface& i) { return i.operstate == "up" && i.name != "lo"; };
  const bool physical =
      std::any_of(node.net_interfaces.begin(), node.net_interfaces.end(), [&](const NetInterface& i) { return up(i) && !i.is_virtual; });
  std::vector<const NetInterface*> out;
  for (const NetInterface& i : node.net_interfaces)
    if (up(i) && i.is_virtual != physical) out.push_back(&i);
  std::stable_sort(out.begin(), out.end(),
                   [](const NetInterface* a, const NetInterface* b) { return ip_link_Gbps(*a) > ip_link_Gbps(*b); });
  return out;
}

double gpu_gpu_limit_GBps(const Gpu& a, const Gpu& b) {
  if (int links = nvlinks_between(a, b); links > 0) {
    // Links of equal speed in practice; take the slowest to stay a true upper bound.
    double speed = 0;
    for (const auto& l : a.nvlinks)
      if (l.active && (speed == 0 || l.speed_GBps < speed)) speed = l.speed_GBps;
    return links * speed;
  }
  double pa = gpu_pcie_GBps(a), pb = gpu_pcie_GBps(b);
  return pa > 0 && pb > 0 ? std::min(pa, pb) : std::max(pa, pb);
}

double gpu_nic_limit_GBps(const Gpu& g, const Nic& n) {
  double limit = 0;
  for (double v : {gpu_pcie_GBps(g), n.placement.link_GBps, nic_GBps(n)})
    if (v > 0) limit = limit == 0 ? v : std::min(limit, v);
  return limit;
}

std::vector<std::string> nearest_nics(const NodeTopology& node, const Gpu& g) {
  auto has_active = [](const Nic& n) {
    return std::any_of(n.ports.begin(), n.ports.end(), [](auto& p) { return p.state == "ACTIVE"; });
  };
  bool any_active = std::any_of(node.nics.begin(), node.nics.end(), has_active);
  PathClass best = PathClass::SYS;
  bool found = false;
  for (const auto& n : node.nics) {
    if (any_active && !has_active(n)) continue;
    PathClass c = gpu_nic_path(g, n).cls;
    if (!found || c < best) best = c, found = true;
  }
  std::vector<std::string> names;
  for (const auto& n : node.nics)
    if ((!any_active || has_active(n)) && found && gpu_nic_path(g, n).cls == best)
      names.push_back(n.name);
  return names;
}

NodeDerived derive(const NodeTopology& node) {
  NodeDerived d;
  for (const auto& g : node.gpus) d.gpus.push_back({g.index, nearest_nics(node, g), gpu_nvlink_GBps(g), gpu_pcie_GBps(g)});
  for (const auto& n : node.nics) d.nics.push_back({n.name, nic_GBps(n), n.placement.link_GBps});
  return d;
}

const Gpu* find_gpu(const NodeTopology& node, const std::string& key) {
  bool numeric = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) { return c >= '0' && c <= '9'; });
  for (const auto& g : node.gpus) {
    if (numeric && g.index == std::stoi(key)) return &g;
    if (!numeric && g.pci_bus_id == normalize_pci_bus_id(key)) return &g;
  }
  return nullptr;
}

}  // namespace cctune::topo
