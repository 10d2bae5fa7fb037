#pragma once
// The `net` section of results.json (schema cctune.net/1) as typed values, and the one
// place that names its pair fields: the probe writes pair entries through to_json here,
// and the report, diagnose and format_network_probe read the section through
// parse_probe_result. Pure (no sockets, no ibverbs): library cctune_net_result, which
// the report links without the probe's hardware code. docs/NETWORK.md describes the format.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "net/probe_stats.hpp"

namespace cctune {
struct Results;
}

namespace cctune::net {

inline constexpr const char* net_schema = "cctune.net/1";

// One rank's end of the pairs, as far as readers need it (the transport's own fields,
// interface or RDMA port, stay in the JSON).
struct ProbeEndpoint {
  int rank = 0;
  std::string host;
  std::string buffer = "host";  // "host", or a GPU buffer's label ("gpu:0:dmabuf")
};

// One measured rank pair: the initiator (lower rank) writes to the responder.
struct ProbePair {
  std::size_t round = 0;
  int initiator = 0;
  int responder = 0;
  std::string initiator_host, responder_host;
  bool same_host = false;
  std::string transport;  // "tcp" | "ib"
  std::string initiator_endpoint, responder_endpoint;  // "eth0 10.0.0.1", "mlx5_0:1"
  double port_rate_Gbps = 0;  // the slower port's rate; 0: unknown
  std::optional<std::string> error;            // the pair failed (initiator's view)
  std::optional<std::string> responder_error;  // the responder's error, when it had one
  std::vector<BandwidthStats> bandwidth;       // one per size, ascending; empty when failed
  std::optional<LatencyStats> latency;
  std::optional<std::string> latency_method;   // ib only
  std::optional<bool> buffer_numa_bound;       // ib with host buffers only
  bool failed() const { return error.has_value() || responder_error.has_value(); }
  // The bandwidth at the largest size: the pair's headline figure; nullptr when none.
  const BandwidthStats* headline() const { return bandwidth.empty() ? nullptr : &bandwidth.back(); }
};

// One pair of the summary's lists (slowest, below_port_rate, below_median).
struct PairSummaryRow {
  int initiator = 0;
  int responder = 0;
  double avg_GBps = 0, avg_Gbps = 0;
  double fraction_of_median = 0;
  double typical_latency_us = 0;
  std::optional<double> fraction_of_port_rate;  // only where the port rate is known
};

struct ProbeSummary {
  std::size_t pairs_measured = 0;
  int pairs_failed = 0;
  std::uint64_t headline_size_bytes = 0;
  std::optional<double> median_avg_GBps, min_avg_GBps, max_avg_GBps;  // absent: no pair measured
  std::optional<double> port_rate_fraction_threshold;
  std::vector<PairSummaryRow> slowest, below_port_rate, below_median;
  std::vector<std::string> notes;
};

// The section as readers use it. A skipped probe has only `skipped` and `reason`.
struct ProbeResult {
  bool skipped = false;
  std::string reason;
  std::string transport, transport_reason;
  int nranks = 0;
  std::size_t rounds = 0;
  std::uint64_t latency_bytes = 0;  // options.latency_bytes
  bool gpu_buffers = false;         // options.gpu_buffers
  std::vector<ProbeEndpoint> endpoints;
  std::vector<ProbePair> pairs;
  ProbeSummary summary;
};

// Reads a `net` section written by cctune probe / sweep --probe. `where` names it in
// errors ("results.json net"). Throws UsageError of one line naming the first missing or
// mistyped field; fields a reader does not use are not checked.
ProbeResult parse_probe_result(const nlohmann::json& net, const std::string& where = "net");
// The results' net section as typed values, parsed once (core/result_section.hpp); nullptr
// when no probe ran. Throws parse_probe_result's UsageError (where: "net") for a section that
// does not follow the format.
const ProbeResult* probe_result_of(const Results& results);
ProbePair parse_probe_pair(const nlohmann::json& pair, const std::string& where);

void to_json(nlohmann::json& j, const ProbePair& p);
void to_json(nlohmann::json& j, const PairSummaryRow& r);
void to_json(nlohmann::json& j, const ProbeSummary& s);

BandwidthStats parse_bandwidth_stats(const nlohmann::json& j, const std::string& where);
LatencyStats parse_latency_stats(const nlohmann::json& j, const std::string& where);

}  // namespace cctune::net
