// Summarise and format a `net` section: which pairs are slowest, which are far below
// what their ports promise. Pure functions over the JSON, tested without a network.
#include <algorithm>
#include <fmt/format.h>
#include <string>
#include <utility>
#include <vector>

#include "core/statistics.hpp"
#include "net/probe.hpp"
#include "net/probe_internal.hpp"

namespace cctune::net {

namespace detail {

namespace {
// The bandwidth entry at the largest size: the headline number of a pair.
const nlohmann::json* headline(const nlohmann::json& pair) {
  if (!pair.contains("bandwidth") || pair["bandwidth"].empty()) return nullptr;
  return &pair["bandwidth"].back();
}
constexpr std::size_t slowest_listed = 3;

// "host memory" when every rank used host memory, else each buffer with its ranks:
// "gpu:0:dmabuf (ranks 0, 2), gpu:1:dmabuf (rank 1)".
std::string buffers_line(const nlohmann::json& endpoints) {
  std::vector<std::pair<std::string, std::vector<int>>> groups;
  for (const auto& e : endpoints) {
    const std::string label = e.value("buffer", "host");
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == label; });
    if (it == groups.end()) it = groups.insert(groups.end(), {label, {}});
    it->second.push_back(e.value("rank", -1));
  }
  if (groups.empty() || (groups.size() == 1 && groups[0].first == "host")) return "host memory";
  std::string out;
  for (const auto& [label, ranks] : groups) {
    out += (out.empty() ? "" : ", ") + label + (ranks.size() == 1 ? " (rank " : " (ranks ");
    for (std::size_t i = 0; i < ranks.size(); ++i) out += (i ? ", " : "") + std::to_string(ranks[i]);
    out += ")";
  }
  return out;
}
}  // namespace

nlohmann::json summarize_pairs(const nlohmann::json& pairs, const ProbeOptions& o) {
  struct Row { int a, b; double gbps, GBps, rate, lat_us; };
  std::vector<Row> rows;
  int failed = 0;
  for (const auto& p : pairs) {
    if (!p["error"].is_null() || p.contains("responder_error")) ++failed;
    const auto* h = headline(p);
    if (!h) continue;
    rows.push_back({p["initiator"], p["responder"], (*h)["avg_Gbps"], (*h)["avg_GBps"], p.value("port_rate_Gbps", 0.0),
                    p.contains("latency") ? p["latency"].value("typical_us", 0.0) : 0.0});
  }
  nlohmann::json s;
  s["pairs_measured"] = rows.size();
  s["pairs_failed"] = failed;
  s["headline_size_bytes"] = o.max_bytes;
  s["notes"] = nlohmann::json::array();
  if (rows.empty()) return s;
  std::vector<double> bw;
  for (const auto& r : rows) bw.push_back(r.GBps);
  const double med = median(bw);
  s["median_avg_GBps"] = med;
  s["min_avg_GBps"] = *std::min_element(bw.begin(), bw.end());
  s["max_avg_GBps"] = *std::max_element(bw.begin(), bw.end());
  std::sort(rows.begin(), rows.end(), [](const Row& x, const Row& y) { return x.GBps < y.GBps; });
  auto row_json = [&](const Row& r) {
    nlohmann::json j = {{"initiator", r.a}, {"responder", r.b}, {"avg_GBps", r.GBps}, {"avg_Gbps", r.gbps},
                        {"fraction_of_median", med > 0 ? r.GBps / med : 0.0}, {"typical_latency_us", r.lat_us}};
    if (r.rate > 0) j["fraction_of_port_rate"] = r.gbps / r.rate;
    return j;
  };
  s["slowest"] = nlohmann::json::array();
  for (std::size_t i = 0; i < std::min(slowest_listed, rows.size()); ++i) s["slowest"].push_back(row_json(rows[i]));
  // Far below the port: only where the port rate is known (ibverbs, or a NIC that
  // reports its speed in sysfs); loopback and veth report none.
  s["port_rate_fraction_threshold"] = o.port_fraction_warn;
  s["below_port_rate"] = nlohmann::json::array();
  bool any_rate = false;
  for (const auto& r : rows) {
    if (r.rate <= 0) continue;
    any_rate = true;
    if (r.gbps < o.port_fraction_warn * r.rate) s["below_port_rate"].push_back(row_json(r));
  }
  if (!any_rate) s["notes"].push_back("port rates unknown (no RDMA port, and the interface reports no speed): pairs are compared with the median only");
  s["below_median"] = nlohmann::json::array();
  for (const auto& r : rows)
    if (rows.size() >= 3 && r.GBps < o.port_fraction_warn * med) s["below_median"].push_back(row_json(r));
  return s;
}

}  // namespace detail

std::string format_network_probe(const nlohmann::json& net) {
  if (net.value("skipped", false)) return "network probe skipped: " + net.value("reason", std::string()) + "\n";
  const auto rounds = net["schedule"]["rounds"].get<std::size_t>();
  std::string out = fmt::format("# network probe: {} ({}), {} ranks, {} round{}\n", net["transport"].get<std::string>(),
                                net["transport_reason"].get<std::string>(), net["nranks"].get<int>(), rounds,
                                rounds == 1 ? "" : "s");
  out += "# buffers: " + detail::buffers_line(net.value("endpoints", nlohmann::json::array())) + "\n";
  out += fmt::format("# {:>5} {:>5} {:>12} {:>10} {:>10} {:>10} {:>10} {:>9} {:>9} {:>9}  {}\n", "init", "resp", "size_B",
                     "avg_GBps", "peak_GBps", "avg_Gbps", "peak_Gbps", "lat_typ", "lat_p99", "lat_max", "endpoints");
  for (const auto& p : net["pairs"]) {
    const std::string ends = p["initiator_endpoint"].get<std::string>() + " -> " + p["responder_endpoint"].get<std::string>();
    if (!p["error"].is_null()) {
      out += fmt::format("  {:>5} {:>5}  failed: {}\n", p["initiator"].get<int>(), p["responder"].get<int>(),
                         p["error"].get<std::string>());
      continue;
    }
    const auto& lat = p["latency"];
    for (const auto& b : p["bandwidth"])
      out += fmt::format("  {:>5} {:>5} {:>12} {:>10.3f} {:>10.3f} {:>10.3f} {:>10.3f} {:>9.2f} {:>9.2f} {:>9.2f}  {}\n",
                         p["initiator"].get<int>(), p["responder"].get<int>(), b["size_bytes"].get<std::uint64_t>(),
                         b["avg_GBps"].get<double>(), b["peak_GBps"].get<double>(), b["avg_Gbps"].get<double>(),
                         b["peak_Gbps"].get<double>(), lat["typical_us"].get<double>(), lat["p99_us"].get<double>(),
                         lat["max_us"].get<double>(), ends);
  }
  const auto& s = net["summary"];
  const bool imm = net["options"].value("gpu_buffers", false);
  out += fmt::format("# latency: one-way = RTT/2 of {}-byte {}ping-pong, microseconds\n",
                     net["options"]["latency_bytes"].get<std::uint64_t>(),
                     imm ? "RDMA write-with-immediate " : "");
  if (s.contains("median_avg_GBps"))
    out += fmt::format("# summary: {} pairs, median {:.3f} GB/s ({:.2f} Gb/s) at {} B; {} failed\n",
                       s["pairs_measured"].get<std::size_t>(), s["median_avg_GBps"].get<double>(),
                       s["median_avg_GBps"].get<double>() * 8, s["headline_size_bytes"].get<std::uint64_t>(),
                       s["pairs_failed"].get<int>());
  for (const auto& r : s.value("slowest", nlohmann::json::array()))
    out += fmt::format("# slowest: {} -> {}: {:.3f} GB/s ({:.0f}% of median)\n", r["initiator"].get<int>(),
                       r["responder"].get<int>(), r["avg_GBps"].get<double>(),
                       100 * r["fraction_of_median"].get<double>());
  for (const auto& r : s.value("below_port_rate", nlohmann::json::array()))
    out += fmt::format("# below port rate: {} -> {}: {:.2f} Gb/s is {:.0f}% of the port rate\n", r["initiator"].get<int>(),
                       r["responder"].get<int>(), r["avg_Gbps"].get<double>(),
                       100 * r["fraction_of_port_rate"].get<double>());
  for (const auto& n : s.value("notes", nlohmann::json::array())) out += "# note: " + n.get<std::string>() + "\n";
  return out;
}

}  // namespace cctune::net
