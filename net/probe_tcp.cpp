// The TCP driver of the probe: one listener per rank on the chosen interface, its
// address allgathered once; in each round the lower rank of a pair connects to the
// higher one and streams to it.
#include <cstdlib>

#include "comm/rank_agreement.hpp"
#include "core/error.hpp"
#include "net/probe_rounds.hpp"
#include "net/socket.hpp"
#include "net/tcp_hello.hpp"
#include "net/tcp_pair.hpp"

namespace cctune::net::detail {

namespace {

nlohmann::json measurement_json(const PairMeasurement& m) {
  nlohmann::json bw = nlohmann::json::array();
  for (const auto& b : m.bandwidth) bw.push_back(b);
  return {{"bandwidth", bw}, {"latency", m.latency}};
}

}  // namespace

void run_tcp_rounds(RankComm& comm, const RankInfo& me, const ProbeOptions& o, const std::vector<Round>& rounds,
                    nlohmann::json& result) {
  Interface iface;
  Fd listener;
  int port = 0;
  agree_on_errors(comm, [&] {
    std::string spec = o.socket_ifname, source = "--socket-ifname";
    if (spec.empty()) {
      if (const char* env = std::getenv("NCCL_SOCKET_IFNAME")) { spec = env; source = "NCCL_SOCKET_IFNAME"; }
    }
    iface = select_interface(spec, source);
    listener = listen_tcp(iface.ipv4, port);
  });
  const nlohmann::json mine = {{"rank", me.rank},          {"host", me.hosts[static_cast<std::size_t>(me.rank)]},
                               {"interface", iface.name},  {"address", iface.ipv4},
                               {"port", port},             {"port_rate_Gbps", iface.speed_Gbps},
                               {"buffer", "host"}};
  const auto endpoints = gather_endpoints(comm, mine);
  const std::string token = job_token(comm);
  result["endpoints"] = endpoints;

  const auto timeout = std::chrono::duration_cast<std::chrono::milliseconds>(o.timeout);
  const auto label = [](const nlohmann::json& e) {
    return e["interface"].get<std::string>() + " " + e["address"].get<std::string>();
  };
  result["pairs"] = run_rounds(comm, me, rounds, endpoints, "tcp", label, o.stop_requested, [&](int peer, bool initiator, nlohmann::json& entry) {
    if (initiator) {
      const auto& b = endpoints[static_cast<std::size_t>(peer)];
      Fd conn = connect_tcp(b["address"], b["port"], timeout, o.stop_requested);
      configure_stream(conn, timeout);
      throw_if_stopped(o.stop_requested);
      send_hello(conn, token, me.rank);
      entry.update(measurement_json(tcp_initiate(conn, o)));
      return;
    }
    before_respond(o, me.rank);
    // Only this round's peer with this job's token starts the pair; anything else that
    // connects (a late retry of an earlier round, a stranger) is dropped.
    Fd conn = accept_peer(listener, token, peer, timeout, o.stop_requested);
    configure_stream(conn, timeout);
    tcp_respond(conn, o);
  });
}

}  // namespace cctune::net::detail
