#include "app/report/report_inputs.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "app/report/svg.hpp"
#include "core/text.hpp"
#include "core/error.hpp"
#include "net/probe_result.hpp"
#include "topology/paths.hpp"
#include "topology/topology_section.hpp"

namespace cctune::app::report {

using nlohmann::json;

namespace {

double number_at(const json& j, const char* key) {
  if (!j.is_object()) return 0;
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0;
}

const json& array_at(const json& j, const char* key) {
  static const json empty = json::array();
  if (!j.is_object()) return empty;
  auto it = j.find(key);
  return it != j.end() && it->is_array() ? *it : empty;
}

std::string string_at(const json& j, const char* key) {
  if (!j.is_object()) return {};
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::vector<const json*> topology_nodes(const json& topology) {
  std::vector<const json*> nodes;
  for (const auto& n : array_at(topology, "nodes"))
    if (n.is_object()) nodes.push_back(&n);
  if (nodes.empty() && topology.is_object() && topology.contains("hostname")) nodes.push_back(&topology);
  return nodes;
}

bool env_is(const RunResult& r, const char* key, const char* value) {
  auto it = r.env.find(key);
  return it != r.env.end() && it->second == value;
}

std::string scalar_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) return svg::format_number(v.get<double>(), 4);
  return text::dump_json(v);
}

std::string truncated_dump(const json& v, std::size_t max = 160) {
  return text::json_excerpt(v, max - 3);
}

}  // namespace

std::optional<Limit> physical_limit(const Results& results, const RunResult& run) {
  const topo::Topology* topology = nullptr;
  try {
    topology = topo::topology_of(results);
  } catch (const UsageError&) {
    return std::nullopt;  // the topology section shows its fields as written; no limit is read from them
  }
  if (!topology) return std::nullopt;
  double nvlink = 0, pcie = 0, nic = 0;
  auto keep_min = [](double& acc, double v) { if (v > 0) acc = acc > 0 ? std::min(acc, v) : v; };
  for (const topo::NodeTopology& node : topology->nodes) {
    if (node.derived) {
      for (const auto& g : node.derived->gpus) keep_min(nvlink, g.nvlink_GBps), keep_min(pcie, g.pcie_GBps);
      for (const auto& n : node.derived->nics) nic = std::max(nic, n.port_GBps);
    }
    if (nic == 0)  // no derived port rate: the raw ports
      for (const auto& n : node.nics) nic = std::max(nic, topo::nic_GBps(n));
  }
  // Without an RDMA NIC the traffic between nodes goes over IP: each node's fastest link (a tc
  // shaper's rate where one is set: a one-box cluster's, docs/LAUNCHING.md), the slowest node's.
  double ip = 0;
  bool shaped = false;
  if (nic == 0)
    for (const topo::NodeTopology& node : topology->nodes)
      if (const auto links = topo::ip_links(node); !links.empty() && topo::ip_link_Gbps(*links.front()) > 0) {
        keep_min(ip, topo::ip_link_Gbps(*links.front()) / 8);
        shaped = shaped || links.front()->shaped_Gbps > 0;
      }
  const bool net = run.nnodes > 1 || run.group == "net" || (env_is(run, "NCCL_P2P_DISABLE", "1") && env_is(run, "NCCL_SHM_DISABLE", "1"));
  if (nic == 0 && ip > 0 && run.nnodes > 1) return Limit{ip, shaped ? "shaped IP link" : "IP link"};
  const bool via_pcie = run.group == "pcie" || env_is(run, "NCCL_P2P_DISABLE", "1");
  if (run.backend != "nccl") {
    // Host-memory MPI collectives on one node have no link limit we can name.
    if (run.nnodes > 1 && nic > 0) return Limit{nic, "NIC port"};
    return std::nullopt;
  }
  if (net) return nic > 0 ? std::optional<Limit>(Limit{nic, "NIC port"}) : std::nullopt;
  if (via_pcie) return pcie > 0 ? std::optional<Limit>(Limit{pcie, "GPU PCIe"}) : std::nullopt;
  if (nvlink > 0) return Limit{nvlink, "NVLink per GPU"};
  if (pcie > 0) return Limit{pcie, "GPU PCIe"};
  return std::nullopt;
}

NetPairs read_net_pairs(const Results& results) {
  NetPairs out;
  const net::ProbeResult* found = nullptr;
  try {
    found = net::probe_result_of(results);
  } catch (const UsageError& e) {
    out.error = e.what_only();
    return out;
  }
  if (!found) return out;
  const net::ProbeResult& probe = *found;
  if (probe.skipped) {
    out.skipped_reason = probe.reason.empty() ? "skipped" : probe.reason;
    return out;
  }
  out.transport = probe.transport;
  out.nranks = probe.nranks;
  for (const auto& p : probe.pairs) {
    const auto* h = p.headline();
    if (p.error || !h || !(h->avg_GBps > 0) || !std::isfinite(h->avg_GBps)) {
      ++out.failed;
      continue;
    }
    out.pairs.push_back({p.initiator, p.responder, h->avg_GBps, p.transport});
  }
  return out;
}

std::string json_to_html(const json& v, int depth) {
  if (v.is_null()) return "<span class=\"muted\">null</span>";
  if (!v.is_structured()) return svg::escape(scalar_text(v));
  if (depth > 5) return "<code>" + svg::escape(truncated_dump(v)) + "</code>";
  if (v.empty()) return "<span class=\"muted\">" + std::string(v.is_array() ? "[]" : "{}") + "</span>";
  if (v.is_array()) {
    const bool scalars = std::all_of(v.begin(), v.end(), [](const json& e) { return !e.is_structured(); });
    if (scalars) {
      std::string out;
      std::size_t i = 0;
      for (const auto& e : v) {
        if (i++ == 64) { out += ", ... (" + std::to_string(v.size()) + " in all)"; break; }
        out += (i > 1 ? ", " : "") + svg::escape(scalar_text(e));
      }
      return out;
    }
    const bool objects = std::all_of(v.begin(), v.end(), [](const json& e) { return e.is_object(); });
    if (objects) {  // a table with the union of keys as columns
      std::vector<std::string> cols;
      for (const auto& e : v)
        for (const auto& [k, x] : e.items())
          if (std::find(cols.begin(), cols.end(), k) == cols.end() && cols.size() < 16) cols.push_back(k);
      std::string out = "<table class=\"data\"><tr>";
      for (const auto& c : cols) out += "<th>" + svg::escape(c) + "</th>";
      out += "</tr>";
      std::size_t rows = 0;
      for (const auto& e : v) {
        if (rows++ == 256) { out += "<tr><td colspan=\"" + std::to_string(cols.size()) + "\">...</td></tr>"; break; }
        out += "<tr>";
        for (const auto& c : cols) out += "<td>" + (e.contains(c) ? json_to_html(e.at(c), depth + 1) : "") + "</td>";
        out += "</tr>";
      }
      return out + "</table>";
    }
  }
  if (v.is_object() && v.contains("names") && v.contains("classes") && v.at("names").is_array() && v.at("classes").is_array()) {
    const json& names = v.at("names");  // a path matrix, as nvidia-smi topo -m prints it
    std::string out = "<table class=\"grid\"><tr><th></th>";
    for (const auto& n : names) out += "<th>" + svg::escape(scalar_text(n)) + "</th>";
    out += "</tr>";
    std::size_t r = 0;
    for (const auto& row : v.at("classes")) {
      out += "<tr><th>" + (r < names.size() ? svg::escape(scalar_text(names[r])) : "") + "</th>";
      if (row.is_array())
        for (const auto& cell : row) out += "<td>" + svg::escape(scalar_text(cell)) + "</td>";
      out += "</tr>";
      ++r;
    }
    return out + "</table>";
  }
  if (v.is_array()) {  // mixed or nested arrays: one row each
    std::string out = "<table class=\"data\">";
    for (const auto& e : v) out += "<tr><td>" + json_to_html(e, depth + 1) + "</td></tr>";
    return out + "</table>";
  }
  std::string out = "<table class=\"kv\">";
  for (const auto& [k, x] : v.items()) out += "<tr><th>" + svg::escape(k) + "</th><td>" + json_to_html(x, depth + 1) + "</td></tr>";
  return out + "</table>";
}

std::vector<std::string> topology_summary(const json& topology) {
  std::vector<std::string> lines;
  for (const json* node : topology_nodes(topology)) {
    std::string line = string_at(*node, "hostname");
    if (line.empty()) line = "(unnamed node)";
    line += ":";
    const std::string cpu = string_at(node->value("cpu", json::object()), "model");
    if (!cpu.empty()) line += " " + cpu + ",";
    std::map<std::string, int> gpu_names;
    for (const auto& g : array_at(*node, "gpus")) gpu_names[string_at(g, "name").empty() ? "GPU" : string_at(g, "name")]++;
    if (gpu_names.empty()) line += " no GPU";
    for (const auto& [name, n] : gpu_names) line += " " + std::to_string(n) + " x " + name;
    const auto& nics = array_at(*node, "nics");
    line += ", " + std::to_string(nics.size()) + (nics.size() == 1 ? " RDMA NIC" : " RDMA NICs");
    std::string detail;
    for (const auto& n : nics) {
      for (const auto& p : array_at(n, "ports")) {
        if (!detail.empty()) detail += ", ";
        detail += string_at(n, "name") + " " + svg::format_number(number_at(p, "rate_Gbps")) + " Gb/s " + string_at(p, "link_layer") + " " +
                  string_at(p, "state");
      }
    }
    if (!detail.empty()) line += " (" + detail + ")";
    lines.push_back(line);
  }
  return lines;
}

}  // namespace cctune::app::report
