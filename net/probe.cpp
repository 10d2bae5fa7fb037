#include "net/probe.hpp"

#include <unistd.h>

#include "core/error.hpp"
#include "net/ib_device.hpp"
#include "net/pair_schedule.hpp"
#include "net/probe_rounds.hpp"
#include "comm/rank_comm_typed.hpp"

namespace cctune::net {

namespace detail {

nlohmann::json options_json(const ProbeOptions& o) {
  return {{"probe", to_string(o.kind)},
          {"min_bytes", o.min_bytes},
          {"max_bytes", o.max_bytes},
          {"step_factor", o.step_factor},
          {"iterations", o.iterations},
          {"warmup_iterations", o.warmup_iterations},
          {"latency_iterations", o.latency_iterations},
          {"latency_bytes", o.latency_bytes},
          {"qps", o.qps},
          {"window", o.window},
          {"socket_ifname", o.socket_ifname},
          {"ib_device", o.ib_device},
          {"timeout_s", o.timeout.count()},
          {"gpu_buffers", o.gpu_buffers}};
}

}  // namespace detail

namespace {

// Which transport the pairs use, and why. Which ranks can do RDMA is decided together so
// every rank takes the same path. Throws when the options ask for what the hosts lack.
std::pair<std::string, std::string> choose_transport(RankComm& comm, const ProbeOptions& o, const detail::RankInfo& me) {
  std::vector<ib::PortInfo> ports;
  try {
    ports = ib::active_ports();
  } catch (const std::exception&) {
    ports.clear();
  }
  const std::vector<std::size_t> counts = allgather_as(comm, ports.size());
  std::string lacking;
  for (std::size_t r = 0; r < counts.size(); ++r)
    if (counts[r] == 0) lacking += (lacking.empty() ? "" : ", ") + me.hosts[r] + " (rank " + std::to_string(r) + ")";

  if (o.kind == ProbeKind::ib && !lacking.empty())
    throw EnvironmentError("--probe ib: no active RDMA device (ibverbs) on " + lacking,
                           o.gpu_buffers ? "run on hosts with RDMA, or drop --gpu-buffers and use --probe tcp"
                                         : "use --probe tcp, or --probe auto to fall back to TCP");
  std::pair<std::string, std::string> choice;
  if (o.kind == ProbeKind::ib) choice = {"ib", "--probe ib"};
  else if (o.kind == ProbeKind::tcp) choice = {"tcp", "--probe tcp"};
  else if (lacking.empty()) choice = {"ib", "every rank has an active RDMA port"};
  else choice = {"tcp", "no active RDMA device (ibverbs) on " + lacking + ": measuring TCP instead"};
  if (o.gpu_buffers && choice.first == "tcp")
    throw EnvironmentError("--gpu-buffers: no active RDMA device (ibverbs) on " + lacking +
                               ", and GPU buffers need RDMA",
                           "run on hosts with RDMA, or drop --gpu-buffers to measure TCP");
  return choice;
}

nlohmann::json schedule_json(const std::vector<Round>& rounds, int n) {
  nlohmann::json schedule = nlohmann::json::array();
  for (const auto& r : rounds) {
    nlohmann::json pairs = nlohmann::json::array();
    for (const auto& p : r.pairs) pairs.push_back({p.first, p.second});
    schedule.push_back({{"pairs", pairs}, {"idle_rank", r.idle_rank < 0 ? nlohmann::json(nullptr) : nlohmann::json(r.idle_rank)}});
  }
  return {{"rounds", rounds.size()}, {"odd_rank_count", n % 2 == 1}, {"round_pairs", schedule}};
}

}  // namespace

nlohmann::json run_network_probe(RankComm& comm, const ProbeOptions& o, const NoteFn& note, const std::vector<std::string>& hosts) {
  validate(o);
  if (o.kind == ProbeKind::none) return {{"skipped", true}, {"reason", "--probe none"}};
  detail::RankInfo me;
  me.rank = comm.rank();
  me.hosts = hosts;
  for (int r = 0; r < me.rank; ++r) me.local_index += me.hosts[static_cast<std::size_t>(r)] == me.hosts[static_cast<std::size_t>(me.rank)];
  auto say = [&](const std::string& s) {
    if (me.rank == 0 && note) note(s);
  };

  nlohmann::json result;
  result["schema"] = net_schema;
  result["options"] = detail::options_json(o);
  result["nranks"] = comm.size();
  const auto [transport, reason] = choose_transport(comm, o, me);
  result["transport"] = transport;
  result["transport_reason"] = reason;
  if (transport == "tcp" && o.kind == ProbeKind::auto_select) say(reason);

  const int n = comm.size();
  if (n < 2)
    throw UsageError("the network probe measures rank pairs and needs at least 2 ranks, got 1",
                     "launch with mpirun -np N (N >= 2; one rank per node, or per NIC)");
  const auto rounds = circle_schedule(n);
  nlohmann::json notes = nlohmann::json::array();
  if (n % 2 == 1) {
    const std::string s = std::to_string(n) + " ranks (odd): one rank sits out each of the " +
                          std::to_string(rounds.size()) + " rounds";
    notes.push_back(s);
    say(s);
  }
  result["schedule"] = schedule_json(rounds, n);

  if (transport == "tcp") {
    detail::run_tcp_rounds(comm, me, o, rounds, result);
    notes.push_back("tcp: NIC-to-NIC pairs within a node are not measured (the kernel routes them locally)");
  } else {
    detail::run_ib_rounds(comm, me, o, rounds, result);
  }
  std::vector<ProbePair> pairs;
  for (std::size_t i = 0; i < result["pairs"].size(); ++i)
    pairs.push_back(parse_probe_pair(result["pairs"][i], "net.pairs[" + std::to_string(i) + "]"));
  result["summary"] = detail::summarize_pairs(pairs, o);
  for (const auto& s : notes) result["summary"]["notes"].push_back(s);
  return result;
}

}  // namespace cctune::net
