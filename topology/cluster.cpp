#include "topology/cluster.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

#include "core/error.hpp"
#include "core/error_record.hpp"
#include "topology/node_probe.hpp"
#include "topology/paths.hpp"
#include "topology/topology_json.hpp"
#include "core/text.hpp"

namespace cctune::topo {

using nlohmann::json;

namespace {

json shape(const NodeTopology& n) {
  json j = to_json(n, /*with_derived=*/false);
  j.erase("hostname");
  j.erase("source");
  j.erase("net_interfaces");  // virtual interfaces come and go (containers, bridges): only the ways out count
  j["ip_links"] = json::array();
  for (const NetInterface* i : ip_links(n)) j["ip_links"].push_back({i->name, ip_link_Gbps(*i)});
  j.erase("absences");        // reasons may carry paths; the absence itself shows as no GPU
  j["software"].erase("kernel");
  for (auto& g : j["gpus"]) g.erase("uuid");
  for (auto& nic : j["nics"])
    for (auto& p : nic["ports"]) p.erase("gids"), p.erase("netdev");
  return j;
}

std::string fnv1a(const std::string& s) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

void compare_version(const std::string& what, const std::string& mine, const std::string& ref,
                     const NodeTopology& node, const NodeTopology& reference, std::vector<TopologyWarning>& out) {
  if (mine == ref) return;
  out.push_back({node.hostname, what,
                 what + " " + (mine.empty() ? "absent" : mine) + " on " + node.hostname + ", " +
                     (ref.empty() ? "absent" : ref) + " on " + reference.hostname});
}

// The nodes' IP links (where the traffic between nodes goes without RDMA): one missing, or
// carrying another rate (a slower port, a shaper), is a difference a cluster's results show.
void compare_ip_links(const NodeTopology& node, const NodeTopology& ref, std::vector<TopologyWarning>& out) {
  const auto mine = ip_links(node);
  for (const NetInterface* r : ip_links(ref)) {
    const auto it = std::find_if(mine.begin(), mine.end(), [&](const NetInterface* i) { return i->name == r->name; });
    if (it == mine.end()) {
      out.push_back(
          {node.hostname, r->name, "IP link " + r->name + " missing (or down) on " + node.hostname + " (up on " + ref.hostname + ")"});
    } else if (ip_link_Gbps(**it) != ip_link_Gbps(*r)) {
      char buf[200];
      std::snprintf(buf, sizeof buf, "IP link %s %s: %g Gb/s on %s, %g Gb/s on %s", r->name.c_str(),
                    ip_link_Gbps(**it) < ip_link_Gbps(*r) ? "is slower" : "differs", ip_link_Gbps(**it), node.hostname.c_str(),
                    ip_link_Gbps(*r), ref.hostname.c_str());
      out.push_back({node.hostname, r->name, buf});
    }
  }
}

void compare(const NodeTopology& node, const NodeTopology& ref, std::vector<TopologyWarning>& out) {
  const std::string& host = node.hostname;
  for (const auto& rg : ref.gpus) {
    auto it = std::find_if(node.gpus.begin(), node.gpus.end(), [&](auto& g) { return g.index == rg.index; });
    std::string item = "GPU " + std::to_string(rg.index);
    if (it == node.gpus.end()) {
      out.push_back({host, item, item + " (" + rg.name + ", " + rg.pci_bus_id + " on " + ref.hostname + ") missing on " + host});
      continue;
    }
    if (it->name != rg.name) out.push_back({host, item, item + " is " + it->name + " on " + host + ", " + rg.name + " on " + ref.hostname});
    auto active = [](const Gpu& g) { return std::count_if(g.nvlinks.begin(), g.nvlinks.end(), [](auto& l) { return l.active; }); };
    if (active(*it) != active(rg))
      out.push_back({host, item, item + " has " + std::to_string(active(*it)) + " active NVLinks on " + host + ", " +
                                     std::to_string(active(rg)) + " on " + ref.hostname});
    if (gpu_pcie_GBps(*it) != gpu_pcie_GBps(rg))
      out.push_back({host, item, item + " PCIe link is gen" + std::to_string(it->pcie_generation) + " x" +
                                     std::to_string(it->pcie_width) + " on " + host + ", gen" + std::to_string(rg.pcie_generation) +
                                     " x" + std::to_string(rg.pcie_width) + " on " + ref.hostname});
  }
  for (const auto& g : node.gpus)
    if (std::none_of(ref.gpus.begin(), ref.gpus.end(), [&](auto& r) { return r.index == g.index; }))
      out.push_back({host, "GPU " + std::to_string(g.index), "GPU " + std::to_string(g.index) + " on " + host + " has no counterpart on " + ref.hostname});
  for (const auto& rn : ref.nics) {
    auto it = std::find_if(node.nics.begin(), node.nics.end(), [&](auto& n) { return n.name == rn.name; });
    if (it == node.nics.end()) {
      out.push_back({host, rn.name, "NIC " + rn.name + " missing on " + host + " (present on " + ref.hostname + ")"});
      continue;
    }
    for (const auto& rp : rn.ports) {
      std::string item = rn.name + " port " + std::to_string(rp.port);
      auto p = std::find_if(it->ports.begin(), it->ports.end(), [&](auto& x) { return x.port == rp.port; });
      if (p == it->ports.end()) {
        out.push_back({host, item, item + " missing on " + host});
      } else if (p->state != rp.state) {
        out.push_back({host, item, item + " is " + p->state + " on " + host + ", " + rp.state + " on " + ref.hostname});
      } else if (p->rate_Gbps != rp.rate_Gbps || p->link_layer != rp.link_layer) {
        char buf[160];
        std::snprintf(buf, sizeof buf, " runs %s %g Gb/s on %s, %s %g Gb/s on %s", p->link_layer.c_str(), p->rate_Gbps,
                      host.c_str(), rp.link_layer.c_str(), rp.rate_Gbps, ref.hostname.c_str());
        out.push_back({host, item, item + (p->rate_Gbps < rp.rate_Gbps ? " is slower:" : " differs:") + buf});
      }
    }
  }
  for (const auto& n : node.nics)
    if (std::none_of(ref.nics.begin(), ref.nics.end(), [&](auto& r) { return r.name == n.name; }))
      out.push_back({host, n.name, "NIC " + n.name + " on " + host + " has no counterpart on " + ref.hostname});
  compare_ip_links(node, ref, out);
  compare_version("driver", node.software.driver, ref.software.driver, node, ref, out);
  compare_version("CUDA driver", node.software.cuda_driver, ref.software.cuda_driver, node, ref, out);
  compare_version("NCCL", node.software.nccl, ref.software.nccl, node, ref, out);
  if (node.cpu.pus != ref.cpu.pus || node.numa_nodes.size() != ref.numa_nodes.size())
    out.push_back({host, "CPU", std::to_string(node.cpu.pus) + " CPUs in " + std::to_string(node.numa_nodes.size()) +
                                    " NUMA nodes on " + host + ", " + std::to_string(ref.cpu.pus) + " in " +
                                    std::to_string(ref.numa_nodes.size()) + " on " + ref.hostname});
}

// Working parts: GPUs, active NVLinks, active ports.
int health(const NodeTopology& n) {
  int score = static_cast<int>(n.gpus.size());
  for (const auto& g : n.gpus)
    for (const auto& l : g.nvlinks) score += l.active;
  for (const auto& nic : n.nics)
    for (const auto& p : nic.ports) score += p.state == "ACTIVE";
  return score;
}

}  // namespace

std::string fingerprint(const NodeTopology& node) { return fnv1a(text::dump_json(shape(node))); }

Topology merge_nodes(std::vector<NodeTopology> nodes) {
  Topology t;
  std::sort(nodes.begin(), nodes.end(), [](auto& a, auto& b) { return a.hostname < b.hostname; });
  std::map<std::string, std::size_t> group_of;
  for (const auto& n : nodes) {
    std::string fp = fingerprint(n);
    auto [it, fresh] = group_of.emplace(fp, t.groups.size());
    if (fresh) t.groups.push_back({fp, {}});
    t.groups[it->second].hosts.push_back(n.hostname);
  }
  // Reference: the largest group; among equal sizes the healthiest, so that with two
  // nodes the one with a port down is the one named in the warnings.
  auto node_of = [&](const std::string& host) -> const NodeTopology& {
    return *std::find_if(nodes.begin(), nodes.end(), [&](auto& n) { return n.hostname == host; });
  };
  std::stable_sort(t.groups.begin(), t.groups.end(), [&](auto& a, auto& b) {
    if (a.hosts.size() != b.hosts.size()) return a.hosts.size() > b.hosts.size();
    return health(node_of(a.hosts.front())) > health(node_of(b.hosts.front()));
  });
  t.nodes = std::move(nodes);
  if (t.groups.size() > 1) {
    const std::string& ref_host = t.groups.front().hosts.front();
    const NodeTopology& ref = *std::find_if(t.nodes.begin(), t.nodes.end(), [&](auto& n) { return n.hostname == ref_host; });
    for (const auto& n : t.nodes)
      if (fingerprint(n) != t.groups.front().fingerprint) compare(n, ref, t.warnings);
  }
  return t;
}

std::optional<Topology> gather_cluster_topology(RankComm& comm, const std::vector<std::string>& hosts,
                                                const std::function<NodeTopology()>& probe) {
  const std::string& hostname = hosts.at(static_cast<std::size_t>(comm.rank()));
  // The lowest rank on each host probes it; the others contribute nothing.
  bool prober = std::find(hosts.begin(), hosts.end(), hostname) - hosts.begin() == comm.rank();
  std::string mine;
  if (prober) {
    try {
      NodeTopology node = probe();
      node.hostname = hostname;
      mine = text::dump_json(to_json(node, false));
    } catch (const Error& e) {
      mine = text::dump_json({{"error", to_json(record_of(e))}});  // every rank must still reach the allgather below
    }
  }
  std::vector<std::string> all = comm.allgather(mine);
  for (std::size_t r = 0; r < all.size(); ++r) {
    if (all[r].empty()) continue;
    const json j = json::parse(all[r], nullptr, false);
    if (!j.is_object() || !j.contains("error")) continue;
    ErrorRecord error = error_record_from_json(j["error"]).value_or(ErrorRecord{ErrorKind::Environment, "no reason given", {}, {}});
    // Every rank throws the same error, which happened at rank r: agreed, with its site.
    error.message = "topology probe failed on " + hosts[r] + " (rank " + std::to_string(r) + "): " + error.message;
    error.site = ErrorSite{hosts[r], static_cast<int>(r), -1};
    rethrow(error);
  }
  if (comm.rank() != 0) return std::nullopt;
  std::vector<NodeTopology> nodes;
  for (const auto& s : all)
    if (!s.empty()) nodes.push_back(node_from_json(json::parse(s)));
  return merge_nodes(std::move(nodes));
}

}  // namespace cctune::topo
