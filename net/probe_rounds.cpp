#include "net/probe_rounds.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "comm/rank_comm_typed.hpp"
#include "core/text.hpp"
#include "net/probe_result.hpp"

namespace cctune::net::detail {

namespace {

// One round of pair entries: each rank contributes its entry (or null); the
// initiator's entry is kept, with the responder's error merged in when it had one.
std::vector<nlohmann::json> gather_round(RankComm& comm, const nlohmann::json& mine) {
  const std::vector<nlohmann::json> entries = allgather_json(comm, mine);
  std::vector<nlohmann::json> pairs;
  for (const auto& e : entries) {
    if (e.is_null() || e.value("role", "") != "initiator") continue;
    nlohmann::json p = e;
    p.erase("role");
    const auto& resp = entries.at(p.at("responder").get<std::size_t>());
    if (resp.is_object() && resp.contains("error") && !resp["error"].is_null())
      p["responder_error"] = resp["error"];
    pairs.push_back(std::move(p));
  }
  return pairs;
}

}  // namespace

nlohmann::json pair_entry(const nlohmann::json& endpoints, std::size_t round, int me, int peer,
                          const std::string& transport, const EndpointLabel& label) {
  const bool initiator = me < peer;
  const auto& a = endpoints[static_cast<std::size_t>(initiator ? me : peer)];
  const auto& b = endpoints[static_cast<std::size_t>(initiator ? peer : me)];
  ProbePair pair;
  pair.round = round;
  pair.initiator = a["rank"].get<int>();
  pair.responder = b["rank"].get<int>();
  pair.initiator_host = a["host"].get<std::string>();
  pair.responder_host = b["host"].get<std::string>();
  pair.same_host = pair.initiator_host == pair.responder_host;
  pair.transport = transport;
  pair.initiator_endpoint = label(a);
  pair.responder_endpoint = label(b);
  pair.port_rate_Gbps = std::min(a["port_rate_Gbps"].get<double>(), b["port_rate_Gbps"].get<double>());
  nlohmann::json entry = pair;
  entry["role"] = initiator ? "initiator" : "responder";
  return entry;
}

nlohmann::json gather_endpoints(RankComm& comm, const nlohmann::json& mine) {
  return allgather_json(comm, mine);
}

nlohmann::json run_rounds(RankComm& comm, const RankInfo& me, const std::vector<Round>& rounds,
                          const nlohmann::json& endpoints, const std::string& transport, const EndpointLabel& label,
                          const std::function<bool()>& stop, const MeasurePair& measure) {
  nlohmann::json pairs = nlohmann::json::array();
  for (std::size_t r = 0; r < rounds.size(); ++r) {
    if (comm.any(stop && stop())) break;  // the sweep stops; the pairs measured so far stand
    const int peer = peer_in_round(rounds[r], me.rank);
    nlohmann::json entry = nullptr;
    if (peer >= 0) {
      entry = pair_entry(endpoints, r, me.rank, peer, transport, label);
      try {
        measure(peer, me.rank < peer, entry);
      } catch (const Error& e) {
        entry["error"] = e.what_only();
      }
    }
    for (auto& p : gather_round(comm, entry)) pairs.push_back(std::move(p));
  }
  return pairs;
}

}  // namespace cctune::net::detail
