// Summarise and format a `net` section: which pairs are slowest, which are far below
// what their ports promise. Pure functions over the typed section (net/probe_result.hpp),
// tested without a network.
#include <algorithm>
#include <fmt/format.h>
#include <string>
#include <utility>
#include <vector>

#include "core/statistics.hpp"
#include "net/probe.hpp"
#include "net/probe_rounds.hpp"
#include "net/probe_result.hpp"

namespace cctune::net {

namespace detail {

namespace {
constexpr std::size_t slowest_listed = 3;

// "host memory" when every rank used host memory, else each buffer with its ranks:
// "gpu:0:dmabuf (ranks 0, 2), gpu:1:dmabuf (rank 1)".
std::string buffers_line(const std::vector<ProbeEndpoint>& endpoints) {
  std::vector<std::pair<std::string, std::vector<int>>> groups;
  for (const auto& e : endpoints) {
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == e.buffer; });
    if (it == groups.end()) it = groups.insert(groups.end(), {e.buffer, {}});
    it->second.push_back(e.rank);
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

std::string pair_lines(const ProbePair& p) {
  const std::string ends = p.initiator_endpoint + " -> " + p.responder_endpoint;
  if (p.error) return fmt::format("  {:>5} {:>5}  failed: {}\n", p.initiator, p.responder, *p.error);
  const LatencyStats lat = p.latency.value_or(LatencyStats{});
  std::string out;
  for (const auto& b : p.bandwidth)
    out += fmt::format("  {:>5} {:>5} {:>12} {:>10.3f} {:>10.3f} {:>10.3f} {:>10.3f} {:>9.2f} {:>9.2f} {:>9.2f}  {}\n", p.initiator,
                       p.responder, b.size_bytes, b.avg_GBps, b.peak_GBps, b.avg_Gbps(), b.peak_Gbps(), lat.typical_us, lat.p99_us,
                       lat.max_us, ends);
  return out;
}
}  // namespace

ProbeSummary summarize_pairs(const std::vector<ProbePair>& pairs, const ProbeOptions& o) {
  struct Row { int a, b; double gbps, GBps, rate, lat_us; };
  std::vector<Row> rows;
  ProbeSummary s;
  for (const auto& p : pairs) {
    if (p.failed()) ++s.pairs_failed;
    const auto* h = p.headline();
    if (!h) continue;
    rows.push_back({p.initiator, p.responder, h->avg_Gbps(), h->avg_GBps, p.port_rate_Gbps, p.latency ? p.latency->typical_us : 0.0});
  }
  s.pairs_measured = rows.size();
  s.headline_size_bytes = o.max_bytes;
  if (rows.empty()) return s;
  std::vector<double> bw;
  for (const auto& r : rows) bw.push_back(r.GBps);
  const double med = median(bw);
  s.median_avg_GBps = med;
  s.min_avg_GBps = *std::min_element(bw.begin(), bw.end());
  s.max_avg_GBps = *std::max_element(bw.begin(), bw.end());
  std::sort(rows.begin(), rows.end(), [](const Row& x, const Row& y) { return x.GBps < y.GBps; });
  auto summary_row = [&](const Row& r) {
    PairSummaryRow row{r.a, r.b, r.GBps, r.gbps, med > 0 ? r.GBps / med : 0.0, r.lat_us, std::nullopt};
    if (r.rate > 0) row.fraction_of_port_rate = r.gbps / r.rate;
    return row;
  };
  for (std::size_t i = 0; i < std::min(slowest_listed, rows.size()); ++i) s.slowest.push_back(summary_row(rows[i]));
  // Far below the port: only where the port rate is known (ibverbs, a NIC that reports its
  // speed in sysfs, or a tc tbf on the interface); loopback reports none.
  s.port_rate_fraction_threshold = o.port_fraction_warn;
  bool any_rate = false;
  for (const auto& r : rows) {
    if (r.rate <= 0) continue;
    any_rate = true;
    if (r.gbps < o.port_fraction_warn * r.rate) s.below_port_rate.push_back(summary_row(r));
  }
  if (!any_rate) s.notes.push_back("port rates unknown (no RDMA port, and the interface reports no speed): pairs are compared with the median only");
  for (const auto& r : rows)
    if (rows.size() >= 3 && r.GBps < o.port_fraction_warn * med) s.below_median.push_back(summary_row(r));
  return s;
}

}  // namespace detail

std::string format_network_probe(const ProbeResult& net) {
  if (net.skipped) return "network probe skipped: " + net.reason + "\n";
  std::string out = fmt::format("# network probe: {} ({}), {} ranks, {} round{}\n", net.transport, net.transport_reason, net.nranks,
                                net.rounds, net.rounds == 1 ? "" : "s");
  out += "# buffers: " + detail::buffers_line(net.endpoints) + "\n";
  out += fmt::format("# {:>5} {:>5} {:>12} {:>10} {:>10} {:>10} {:>10} {:>9} {:>9} {:>9}  {}\n", "init", "resp", "size_B",
                     "avg_GBps", "peak_GBps", "avg_Gbps", "peak_Gbps", "lat_typ", "lat_p99", "lat_max", "endpoints");
  for (const auto& p : net.pairs) out += detail::pair_lines(p);
  const auto& s = net.summary;
  out += fmt::format("# latency: one-way = RTT/2 of {}-byte {}ping-pong, microseconds\n", net.latency_bytes,
                     net.gpu_buffers ? "RDMA write-with-immediate " : "");
  if (s.median_avg_GBps)
    out += fmt::format("# summary: {} pairs, median {:.3f} GB/s ({:.2f} Gb/s) at {} B; {} failed\n", s.pairs_measured,
                       *s.median_avg_GBps, *s.median_avg_GBps * 8, s.headline_size_bytes, s.pairs_failed);
  for (const auto& r : s.slowest)
    out += fmt::format("# slowest: {} -> {}: {:.3f} GB/s ({:.0f}% of median)\n", r.initiator, r.responder, r.avg_GBps,
                       100 * r.fraction_of_median);
  for (const auto& r : s.below_port_rate)
    out += fmt::format("# below port rate: {} -> {}: {:.2f} Gb/s is {:.0f}% of the port rate\n", r.initiator, r.responder, r.avg_Gbps,
                       100 * r.fraction_of_port_rate.value_or(0));
  for (const auto& n : s.notes) out += "# note: " + n + "\n";
  return out;
}

std::string format_network_probe(const nlohmann::json& net) { return format_network_probe(parse_probe_result(net)); }

}  // namespace cctune::net
