#pragma once
// The probe's rounds, shared by its transport drivers (TCP, ibverbs): pair entries, endpoints,
// the round loop and the summary over pairs. Not a public API (namespace detail).
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "comm/rank_comm.hpp"
#include "net/pair_schedule.hpp"
#include "net/probe_options.hpp"
#include "net/probe_result.hpp"

namespace cctune::net::detail {

struct RankInfo {
  int rank = 0;
  int local_index = 0;  // position among the ranks on the same host
  std::vector<std::string> hosts;  // every rank's host name
};

// How a transport names one end of a pair in its entry ("mlx5_0:1", "eth0 10.0.0.1"),
// given that rank's element of result["endpoints"].
using EndpointLabel = std::function<std::string(const nlohmann::json& endpoint)>;

// The start of this rank's pair entry for `round` against `peer`: role, ranks, hosts,
// endpoint labels, the slower port's rate and no error yet. The lower rank initiates.
nlohmann::json pair_entry(const nlohmann::json& endpoints, std::size_t round, int me, int peer,
                          const std::string& transport, const EndpointLabel& label);

// Every rank's endpoint description (its element of result["endpoints"]), in rank order.
nlohmann::json gather_endpoints(RankComm& comm, const nlohmann::json& mine);

// Measures this rank's pair of a round and fills `entry` (the initiator's entry is the
// one kept); throws cctune::Error on failure.
using MeasurePair = std::function<void(int peer, bool initiator, nlohmann::json& entry)>;

// The rounds, the same for every transport: in each, this rank measures with its peer
// (if it has one); an Error becomes the entry's "error" and the other pairs go on; then
// the round's entries are gathered. Returns result["pairs"], the same on every rank. A stop
// request on any rank (`stop`, asked collectively before each round) ends the rounds early.
nlohmann::json run_rounds(RankComm& comm, const RankInfo& me, const std::vector<Round>& rounds,
                          const nlohmann::json& endpoints, const std::string& transport, const EndpointLabel& label,
                          const std::function<bool()>& stop, const MeasurePair& measure);

// Per-transport drivers: fill result["endpoints"], result["pairs"].
void run_tcp_rounds(RankComm& comm, const RankInfo& me, const ProbeOptions& o,
                    const std::vector<Round>& rounds, nlohmann::json& result);
void run_ib_rounds(RankComm& comm, const RankInfo& me, const ProbeOptions& o,
                   const std::vector<Round>& rounds, nlohmann::json& result);

// Summary over the pairs: slowest pairs, pairs below the port rate.
ProbeSummary summarize_pairs(const std::vector<ProbePair>& pairs, const ProbeOptions& o);

nlohmann::json options_json(const ProbeOptions& o);

}  // namespace cctune::net::detail
