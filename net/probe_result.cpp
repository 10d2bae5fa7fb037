#include "net/probe_result.hpp"

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/json_fields.hpp"
#include "core/results.hpp"

namespace cctune::net {

using nlohmann::json;

namespace {

constexpr const char* fix = "pass a net section written by cctune probe or cctune sweep --probe (docs/NETWORK.md), or re-run the probe";

JsonFields fields(const json& j, const std::string& where) { return JsonFields(j, where, fix); }

PairSummaryRow parse_row(const JsonFields& f) {
  PairSummaryRow r;
  r.initiator = f.get<int>("initiator");
  r.responder = f.get<int>("responder");
  r.avg_GBps = f.get<double>("avg_GBps");
  r.avg_Gbps = f.get<double>("avg_Gbps");
  r.fraction_of_median = f.get<double>("fraction_of_median");
  r.typical_latency_us = f.get<double>("typical_latency_us");
  r.fraction_of_port_rate = f.get_optional<double>("fraction_of_port_rate");
  return r;
}

std::vector<PairSummaryRow> parse_rows(const JsonFields& summary, const char* key) {
  std::vector<PairSummaryRow> rows;
  if (!summary.has(key)) return rows;
  for (std::size_t i = 0; i < summary.array(key).size(); ++i) rows.push_back(parse_row(summary.element(key, i)));
  return rows;
}

ProbeSummary parse_summary(const JsonFields& f) {
  ProbeSummary s;
  s.pairs_measured = f.get<std::uint64_t>("pairs_measured");
  s.pairs_failed = f.get<int>("pairs_failed");
  s.headline_size_bytes = f.get<std::uint64_t>("headline_size_bytes");
  s.median_avg_GBps = f.get_optional<double>("median_avg_GBps");
  s.min_avg_GBps = f.get_optional<double>("min_avg_GBps");
  s.max_avg_GBps = f.get_optional<double>("max_avg_GBps");
  s.port_rate_fraction_threshold = f.get_optional<double>("port_rate_fraction_threshold");
  s.slowest = parse_rows(f, "slowest");
  s.below_port_rate = parse_rows(f, "below_port_rate");
  s.below_median = parse_rows(f, "below_median");
  const json& notes = f.array("notes");
  for (std::size_t i = 0; i < notes.size(); ++i)
    s.notes.push_back(f.read<std::string>(notes[i], f.path("notes") + "[" + std::to_string(i) + "]"));
  return s;
}

ProbeEndpoint parse_endpoint(const JsonFields& f) {
  ProbeEndpoint e;
  e.rank = f.get<int>("rank");
  e.host = f.get<std::string>("host");
  e.buffer = f.get_optional<std::string>("buffer").value_or("host");
  return e;
}

}  // namespace

BandwidthStats parse_bandwidth_stats(const json& j, const std::string& where) {
  const JsonFields f = fields(j, where);
  BandwidthStats s;
  s.size_bytes = f.get<std::uint64_t>("size_bytes");
  s.iterations = f.get<long>("iterations");
  s.time_s = f.get<double>("time_s");
  s.avg_GBps = f.get<double>("avg_GBps");
  s.peak_GBps = f.get<double>("peak_GBps");
  return s;
}

LatencyStats parse_latency_stats(const json& j, const std::string& where) {
  const JsonFields f = fields(j, where);
  LatencyStats s;
  s.size_bytes = f.get<std::uint64_t>("size_bytes");
  s.iterations = f.get<long>("iterations");
  s.min_us = f.get<double>("min_us");
  s.typical_us = f.get<double>("typical_us");
  s.avg_us = f.get<double>("avg_us");
  s.p99_us = f.get<double>("p99_us");
  s.p999_us = f.get<double>("p99_9_us");
  s.max_us = f.get<double>("max_us");
  s.stdev_us = f.get<double>("stdev_us");
  return s;
}

ProbePair parse_probe_pair(const json& pair, const std::string& where) {
  const JsonFields f = fields(pair, where);
  ProbePair p;
  p.round = f.get<std::uint64_t>("round");
  p.initiator = f.get<int>("initiator");
  p.responder = f.get<int>("responder");
  p.initiator_host = f.get<std::string>("initiator_host");
  p.responder_host = f.get<std::string>("responder_host");
  p.same_host = f.get<bool>("same_host");
  p.transport = f.get<std::string>("transport");
  p.initiator_endpoint = f.get<std::string>("initiator_endpoint");
  p.responder_endpoint = f.get<std::string>("responder_endpoint");
  p.port_rate_Gbps = f.get<double>("port_rate_Gbps");
  p.error = f.get_optional<std::string>("error");
  p.responder_error = f.get_optional<std::string>("responder_error");
  if (f.has("bandwidth"))
    for (std::size_t i = 0; i < f.array("bandwidth").size(); ++i)
      p.bandwidth.push_back(parse_bandwidth_stats(f.array("bandwidth")[i], f.path("bandwidth") + "[" + std::to_string(i) + "]"));
  if (f.has("latency") && !f.raw().at("latency").is_null()) p.latency = parse_latency_stats(f.raw().at("latency"), f.path("latency"));
  p.latency_method = f.get_optional<std::string>("latency_method");
  p.buffer_numa_bound = f.get_optional<bool>("buffer_numa_bound");
  return p;
}

ProbeResult parse_probe_result(const json& net, const std::string& where) {
  const JsonFields f = fields(net, where);
  ProbeResult r;
  r.skipped = f.get_optional<bool>("skipped").value_or(false);
  if (r.skipped) {
    r.reason = f.get_optional<std::string>("reason").value_or("");
    return r;
  }
  if (const std::string schema = f.get<std::string>("schema"); schema != net_schema)
    throw UsageError(f.path("schema") + " is '" + schema + "', expected '" + net_schema + "'", fix);
  r.transport = f.get<std::string>("transport");
  r.transport_reason = f.get<std::string>("transport_reason");
  r.nranks = f.get<int>("nranks");
  r.rounds = f.object("schedule").get<std::uint64_t>("rounds");
  const JsonFields options = f.object("options");
  r.latency_bytes = options.get<std::uint64_t>("latency_bytes");
  r.gpu_buffers = options.get<bool>("gpu_buffers");
  for (std::size_t i = 0; i < f.array("endpoints").size(); ++i) r.endpoints.push_back(parse_endpoint(f.element("endpoints", i)));
  for (std::size_t i = 0; i < f.array("pairs").size(); ++i) {
    const std::string at = f.path("pairs") + "[" + std::to_string(i) + "]";
    r.pairs.push_back(parse_probe_pair(f.array("pairs")[i], at));
    for (const auto& [name, rank] : {std::pair{"initiator", r.pairs.back().initiator}, std::pair{"responder", r.pairs.back().responder}})
      if (rank < 0 || rank >= r.nranks)
        throw UsageError(at + "." + name + ": rank " + std::to_string(rank) + " is not a rank of this " + std::to_string(r.nranks) +
                             "-rank probe",
                         fix);
  }
  r.summary = parse_summary(f.object("summary"));
  return r;
}

void to_json(json& j, const ProbePair& p) {
  j = {{"round", p.round},
       {"initiator", p.initiator},
       {"responder", p.responder},
       {"initiator_host", p.initiator_host},
       {"responder_host", p.responder_host},
       {"same_host", p.same_host},
       {"transport", p.transport},
       {"initiator_endpoint", p.initiator_endpoint},
       {"responder_endpoint", p.responder_endpoint},
       {"port_rate_Gbps", p.port_rate_Gbps},
       {"error", p.error ? json(*p.error) : json(nullptr)}};
  if (p.responder_error) j["responder_error"] = *p.responder_error;
  if (!p.bandwidth.empty()) j["bandwidth"] = p.bandwidth;
  if (p.latency) j["latency"] = *p.latency;
  if (p.latency_method) j["latency_method"] = *p.latency_method;
  if (p.buffer_numa_bound) j["buffer_numa_bound"] = *p.buffer_numa_bound;
}

void to_json(json& j, const PairSummaryRow& r) {
  j = {{"initiator", r.initiator},   {"responder", r.responder},
       {"avg_GBps", r.avg_GBps},     {"avg_Gbps", r.avg_Gbps},
       {"fraction_of_median", r.fraction_of_median}, {"typical_latency_us", r.typical_latency_us}};
  if (r.fraction_of_port_rate) j["fraction_of_port_rate"] = *r.fraction_of_port_rate;
}

void to_json(json& j, const ProbeSummary& s) {
  j = {{"pairs_measured", s.pairs_measured}, {"pairs_failed", s.pairs_failed}, {"headline_size_bytes", s.headline_size_bytes},
       {"notes", s.notes}};
  if (!s.median_avg_GBps) return;  // no pair measured: nothing to rank
  j["median_avg_GBps"] = *s.median_avg_GBps;
  if (s.min_avg_GBps) j["min_avg_GBps"] = *s.min_avg_GBps;
  if (s.max_avg_GBps) j["max_avg_GBps"] = *s.max_avg_GBps;
  if (s.port_rate_fraction_threshold) j["port_rate_fraction_threshold"] = *s.port_rate_fraction_threshold;
  j["slowest"] = s.slowest;
  j["below_port_rate"] = s.below_port_rate;
  j["below_median"] = s.below_median;
}

const ProbeResult* probe_result_of(const Results& results) {
  if (!results.net.present()) return nullptr;
  return &results.net.get<ProbeResult>([](const json& j) { return parse_probe_result(j, "net"); });
}

}  // namespace cctune::net
