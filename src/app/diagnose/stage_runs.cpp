#include "app/diagnose/stage_runs.hpp"

#include <chrono>
#include <filesystem>
#include <functional>

#include "app/run/job_run.hpp"
#include "app/run/json_reporter.hpp"
#include "app/run/mpi_sweep.hpp"
#include "comm/mpi_rank_comm.hpp"
#include "comm/rank_agreement.hpp"
#include "comm/rank_comm_typed.hpp"
#include "core/error_record.hpp"
#include "core/results_json.hpp"
#include "core/text.hpp"
#include "net/probe.hpp"

namespace cctune::app::diagnose {
namespace {

MpiRankComm& world_of(Session& session) { return dynamic_cast<MpiRankComm&>(session.world()); }

// Runs `work` on every part of the job at once: ranks with the same color (>= 0) form a part,
// ranks with a negative color wait. `work` runs with the part scoped as session.comm() and
// returns, on the part's rank 0, the JSON its part hands to world rank 0 (others: null).
// An error in any part is thrown on every rank of the job.
std::vector<nlohmann::json> on_parts(Session& session, int color, const std::function<nlohmann::json()>& work) {
  MpiRankComm& world = world_of(session);
  const std::unique_ptr<MpiRankComm> part = world.split(color, world.rank());
  nlohmann::json mine = nullptr;
  agree_on_errors(world, [&] {
    if (!part) return;
    Session::CommScope scope(session, *part);
    nlohmann::json out = work();
    if (part->rank() == 0) mine = std::move(out);
  });
  std::vector<nlohmann::json> out;
  for (nlohmann::json& j : allgather_json(world, mine))
    if (!j.is_null()) out.push_back(std::move(j));
  return out;
}

// The sweep of the stage's plan on the scoped part: its one run.
// NCCL workers of parts running at once write their logs apart (<output>/parts/<stage>-<nodes>/
// workers): parts on one host, or on a shared file system, would otherwise write the same files.
nlohmann::json sweep_part(const StageContext& ctx, const std::string& stage, std::vector<std::string> nodes) {
  JsonReporter collect(Results{}, "");  // no path: collects the part's one run, saves nothing
  SweepPlan plan = ctx.plan;
  std::string part = stage;
  for (const std::string& n : nodes) part += "-" + n;
  if (nodes.size() > 2) part = stage;
  plan.output_dir = (std::filesystem::path(ctx.plan.output_dir) / "parts" / part).string();
  const auto start = std::chrono::steady_clock::now();
  if (ctx.gpus)
    runtime::NcclJob(supervisor_of(ctx.session), plan.nccl, ctx.gpus->device_count).run(plan, collect);
  else
    run_mpi_sweep(ctx.session, plan, collect);
  const double took_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // A sweep that a signal stopped before its run began has no run to report: the part is left
  // out (its stage says it was interrupted), not reported as a run of 0 ranks.
  if (collect.results().runs.empty()) return nullptr;
  return {{"nodes", std::move(nodes)}, {"run", collect.results().runs.front()}, {"duration_s", took_s}};
}

std::vector<PartRun> to_part_runs(const std::vector<nlohmann::json>& parts) {
  std::vector<PartRun> out;
  for (const auto& j : parts)
    out.push_back({j.at("nodes").get<std::vector<std::string>>(), j.at("run").get<RunResult>(), j.at("duration_s").get<double>()});
  return out;
}

// The pair of `round` this rank's node is in (index into round.pairs), or -1.
int pair_index(const net::Round& round, int node) {
  for (std::size_t i = 0; i < round.pairs.size(); ++i)
    if (round.pairs[i].first == node || round.pairs[i].second == node) return static_cast<int>(i);
  return -1;
}

std::vector<std::string> pair_names(const NodeMap& map, const net::RankPair& p) {
  return {map.names[static_cast<std::size_t>(p.first)], map.names[static_cast<std::size_t>(p.second)]};
}

// A pair's probe error as its part sent it: the message, or empty for none.
std::string error_of(const nlohmann::json& error) {
  if (error.is_null()) return {};
  const auto record = error_record_from_json(error);
  return record ? record->message : "the probe failed and its error could not be read";
}

}  // namespace

NodeMap map_nodes(Session& session, bool rank_is_node) {
  RankComm& world = session.world();
  const std::string mine = rank_is_node ? session.hostname() + "-shared" + std::to_string(world.rank()) : session.hostname();
  NodeMap map;
  const std::vector<std::string> all = world.allgather(mine);
  for (std::size_t r = 0; r < all.size(); ++r) {
    std::size_t node = 0;
    while (node < map.names.size() && map.names[node] != all[r]) ++node;
    if (node == map.names.size()) {
      map.names.push_back(all[r]);
      map.leader.push_back(static_cast<int>(r));
    }
    map.node_of_rank.push_back(static_cast<int>(node));
  }
  map.my_node = map.node_of_rank[static_cast<std::size_t>(world.rank())];
  return map;
}

std::vector<PartRun> run_per_node(const StageContext& ctx) {
  const std::string& me = ctx.map.names[static_cast<std::size_t>(ctx.map.my_node)];
  return to_part_runs(on_parts(ctx.session, ctx.map.my_node, [&] { return sweep_part(ctx, "node", {me}); }));
}

std::vector<PartRun> run_pair_round(const StageContext& ctx, const net::Round& round) {
  const int pair = pair_index(round, ctx.map.my_node);
  return to_part_runs(on_parts(ctx.session, pair, [&] {
    return sweep_part(ctx, "pair", pair_names(ctx.map, round.pairs[static_cast<std::size_t>(pair)]));
  }));
}

std::vector<PartRun> run_all_nodes(const StageContext& ctx) {
  return to_part_runs(on_parts(ctx.session, 0, [&] { return sweep_part(ctx, "all", ctx.map.names); }));
}

std::vector<int> gpus_per_node(const StageContext& ctx) {
  const auto parts = on_parts(ctx.session, ctx.map.my_node, [&]() -> nlohmann::json {
    const int n = ctx.gpus ? runtime::NcclJob(supervisor_of(ctx.session), ctx.plan.nccl, ctx.gpus->device_count).shape().nranks
                           : ctx.session.comm().size();
    return {{"node", ctx.map.my_node}, {"gpus", n}};
  });
  std::vector<int> out(ctx.map.names.size(), 0);
  for (const auto& j : parts) out[j.at("node").get<std::size_t>()] = j.at("gpus").get<int>();
  return out;
}

std::vector<PairProbe> probe_pair_round(const StageContext& ctx, const net::Round& round, const net::ProbeOptions& options) {
  const int rank = ctx.session.world().rank();
  const bool leader = ctx.map.leader[static_cast<std::size_t>(ctx.map.my_node)] == rank;
  const int pair = leader ? pair_index(round, ctx.map.my_node) : -1;
  const auto parts = on_parts(ctx.session, pair, [&]() -> nlohmann::json {
    nlohmann::json out = {{"nodes", pair_names(ctx.map, round.pairs[static_cast<std::size_t>(pair)])}, {"net", nullptr}, {"error", nullptr}};
    // A pair that cannot be probed (no usable interface, a refused connection) is a finding of
    // its own, not the end of the diagnosis: both ranks of the pair see the same error.
    try {
      RankComm& comm = ctx.session.comm();
      agree_on_errors(comm, [&] { out["net"] = net::run_network_probe(comm, options, {}, ctx.session.layout().hosts); });
    } catch (const Error& e) {
      out["error"] = to_json(record_of(e));
    }
    return out;
  });
  std::vector<PairProbe> out;
  for (const auto& j : parts)
    out.push_back({j.at("nodes").get<std::vector<std::string>>(), j.at("net"), error_of(j.at("error"))});
  return out;
}

}  // namespace cctune::app::diagnose
