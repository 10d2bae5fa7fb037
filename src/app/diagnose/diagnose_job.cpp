#include "app/diagnose/diagnose_job.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>

#include "app/report/report_inputs.hpp"
#include "runtime/signals.hpp"
#include "diagnose/attribution.hpp"
#include "diagnose/outliers.hpp"
#include "diagnose/straggler.hpp"
#include "core/text.hpp"
#include "net/probe_result.hpp"

namespace cctune::app::diagnose {
namespace {

// A rank's GPU on its node: its CUDA device, or where it has none (MPI on host buffers) its
// index among the node's ranks.
int gpu_index(const RunResult& run, int rank) {
  if (rank < 0 || static_cast<std::size_t>(rank) >= run.places.size()) return rank;
  const RankPlace& place = run.places[static_cast<std::size_t>(rank)];
  return place.gpu >= 0 ? place.gpu : place.local_rank;
}

// The run's out-of-place AllReduce at `size`, when it was measured.
const PointResult* point_at(const RunResult& run, std::uint64_t size) {
  for (const PointResult& p : run.points)
    if (p.size_bytes == size && !p.in_place && p.status == PointStatus::Ok) return &p;
  return nullptr;
}

double busbw_at(const RunResult& run, std::uint64_t size) {
  const PointResult* p = point_at(run, size);
  return p ? p->busbw_GBps : 0;
}

double time_at(const RunResult& run, std::uint64_t size) {
  const PointResult* p = point_at(run, size);
  return p ? p->batch_us : 0;
}

// Each GPU of a node's run at `size` (its own per-operation time, how often it arrived last),
// and the ranks the straggler rule names over the run's points.
void add_stragglers(DiagnosisDoc& doc, const RunResult& run, const std::function<std::string(int)>& host_of) {
  for (const cctune::diagnose::StragglerTally& t : cctune::diagnose::find_stragglers(run)) {
    const auto& s = t.straggler;
    doc.stragglers.push_back({host_of(s.rank), gpu_index(run, s.rank), s.rank, s.last_pct, s.others_wait_us, s.op_us,
                              t.points_named, t.points_measured});
  }
}

void add_gpus(DiagnosisDoc& doc, const std::string& host, const RunResult& run) {
  if (const PointResult* p = point_at(run, doc.latency_bytes); p && !p->ranks.empty())
    for (std::size_t r = 0; r < p->ranks.size(); ++r)
      doc.gpus.push_back({host, gpu_index(run, static_cast<int>(r)), p->ranks.iter_median_us[r], p->ranks.last_pct[r] / 100});
  add_stragglers(doc, run, [&](int) { return host; });
}

// The node of rank `rank` of the all-node run: its place's host, or in the shared-GPU test mode
// (every supervisor a node, its workers consecutive ranks) its supervisor's node.
std::string node_of(const StageContext& ctx, const RunResult& run, int rank) {
  const int world = static_cast<int>(ctx.map.node_of_rank.size());
  if (ctx.plan.nccl.test_shared_gpu > 0 && run.nranks >= world && run.nranks % world == 0)
    return ctx.map.names[static_cast<std::size_t>(ctx.map.node_of_rank[static_cast<std::size_t>(rank / (run.nranks / world))])];
  if (rank >= 0 && static_cast<std::size_t>(rank) < run.places.size()) return run.places[static_cast<std::size_t>(rank)].host;
  return "rank " + std::to_string(rank);
}

class StageClock {
 public:
  double seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// The physical limit of the path a run's busbw is bound by (report::physical_limit), 0: unknown.
double limit_of(const Results& topology, const RunResult& run) {
  const auto limit = report::physical_limit(topology, run);
  return limit ? limit->GBps : 0;
}

StageFile stage_file(std::string name, const Meta& meta, const Results& topology, const std::vector<PartRun>& parts,
                     const std::string& label) {
  StageFile f{std::move(name), {}};
  f.results.meta = meta;
  f.results.topology = topology.topology;
  f.results.meta.status = MetaStatus::Complete;
  for (const PartRun& p : parts) {
    RunResult run = p.run;
    run.group = label;
    for (std::size_t i = 0; i < p.nodes.size(); ++i) run.group += (i ? "-" : " ") + p.nodes[i];
    f.results.runs.push_back(std::move(run));
  }
  return f;
}

void say_stage(const StageContext& ctx, const std::string& text) {
  if (ctx.session.world().rank() != 0) return;
  std::printf("# %s\n", text.c_str());
  std::fflush(stdout);
}

PairResult& pair_entry(DiagnosisDoc& doc, const std::vector<std::string>& nodes) {
  for (PairResult& p : doc.pairs_measured)
    if (p.host_a == nodes.at(0) && p.host_b == nodes.at(1)) return p;
  doc.pairs_measured.push_back({});
  doc.pairs_measured.back().host_a = nodes.at(0);
  doc.pairs_measured.back().host_b = nodes.at(1);
  return doc.pairs_measured.back();
}

// The rounds again, with only the pairs the judgement of their collective busbw would blame
// (cctune::diagnose::pairs_to_confirm): they are measured once more before anything is judged.
// Every rank holds the same figures (on_parts gathers them), so every rank builds the same rounds.
std::vector<net::Round> rounds_to_confirm(const StageContext& ctx, const std::vector<net::Round>& rounds, const DiagnosisDoc& doc) {
  std::vector<cctune::diagnose::PairFigure> figures;
  for (const PairResult& p : doc.pairs_measured)
    if (p.busbw_gbps > 0) figures.push_back({p.host_a, p.host_b, p.busbw_gbps, p.busbw_limit_gbps, 0});
  std::vector<std::pair<std::string, std::string>> slow;
  for (const std::size_t i : cctune::diagnose::pairs_to_confirm(figures)) slow.emplace_back(figures[i].host_a, figures[i].host_b);
  std::vector<net::Round> out;
  for (const net::Round& round : rounds) {
    net::Round again;
    for (const net::RankPair& p : round.pairs) {
      const std::pair<std::string, std::string> names{ctx.map.names[static_cast<std::size_t>(p.first)],
                                                      ctx.map.names[static_cast<std::size_t>(p.second)]};
      if (std::find(slow.begin(), slow.end(), names) != slow.end()) again.pairs.push_back(p);
    }
    if (!again.pairs.empty()) out.push_back(std::move(again));
  }
  return out;
}

// One pair's probe: its bandwidth (GB/s), port limit and latency, or its error; read
// through the probe's own format (net/probe_result.hpp), as the report reads it.
void add_probe(JobOutcome& out, const PairProbe& p) {
  PairResult& e = pair_entry(out.doc, p.nodes);
  e.probe_error = p.error;
  if (p.net.is_null()) return;
  out.probes.push_back(p.net);
  const net::ProbeResult probe = net::parse_probe_result(p.net, "the pair probe of " + p.nodes.at(0) + " and " + p.nodes.at(1));
  if (probe.pairs.empty()) {
    e.probe_error = "the probe measured no pair";
    return;
  }
  const net::ProbePair& pair = probe.pairs.front();
  if (pair.error) {
    e.probe_error = *pair.error;
    return;
  }
  // "eth0 10.0.0.1" (TCP) or "mlx5_0:1" (ibverbs): the NIC is the first word.
  const auto nic_of = [](const std::string& endpoint) { return endpoint.substr(0, endpoint.find(' ')); };
  const bool a_initiates = pair.initiator_host == e.host_a;
  e.probe_nic_a = nic_of(a_initiates ? pair.initiator_endpoint : pair.responder_endpoint);
  e.probe_nic_b = nic_of(a_initiates ? pair.responder_endpoint : pair.initiator_endpoint);
  if (!pair.bandwidth.empty()) e.probe_gbps = pair.bandwidth.front().avg_Gbps() / 8;
  e.probe_limit_gbps = pair.port_rate_Gbps / 8;
  if (pair.latency) e.probe_latency_us = pair.latency->typical_us;
}

// SIGINT/SIGTERM (install_stop_handlers): the running sweep ends at its next point boundary;
// no further stage or round starts. Collective over the world, between stages and rounds.
bool stop_agreed(const StageContext& ctx, JobOutcome& out) {
  if (!ctx.session.world().any(runtime::stop_signal() != 0)) return false;
  out.stop_signal = runtime::agreed_stop_signal();
  return true;
}

// The stage `from` and every later one that has not run are marked as skipped by the stop.
void skip_after_stop(DiagnosisDoc& doc, const std::string& from) {
  bool on = false;
  for (StageRecord& s : doc.stages) {
    on = on || s.name == from;
    if (!on || s.rounds == 0 || s.duration_s > 0) continue;
    s.rounds = 0;
    s.skipped_why = "interrupted by a signal before it started";
  }
}

// A loaded host can slow a healthy pair once; a slow path is slow both times: the pairs the
// judgement would blame are measured again and keep the better reading (docs/DIAGNOSE.md).
void confirm_slow_pairs(const StageContext& ctx, const std::vector<net::Round>& rounds, const Meta& meta,
                        const Results& topology, JobOutcome& out) {
  DiagnosisDoc& doc = out.doc;
  std::vector<PartRun> again;
  for (const net::Round& round : rounds_to_confirm(ctx, rounds, doc))
    for (PartRun& p : run_pair_round(ctx, round)) {
      PairResult& e = pair_entry(doc, p.nodes);
      e.busbw_gbps = cctune::diagnose::better_reading(e.busbw_gbps, busbw_at(p.run, doc.bandwidth_bytes), cctune::diagnose::Better::Higher);
      e.latency_us = cctune::diagnose::better_reading(e.latency_us, time_at(p.run, doc.latency_bytes), cctune::diagnose::Better::Lower);
      again.push_back(std::move(p));
    }
  if (again.empty()) return;
  say_stage(ctx, "stage pair collective: " + std::to_string(again.size()) + " slow pair(s) measured again");
  out.files.push_back(stage_file("pairs_again", meta, topology, again, "pair"));
}

}  // namespace

JobOutcome run_stages(const StageContext& ctx, const cctune::diagnose::DiagnosePlan& plan,
                      const std::optional<net::ProbeOptions>& probe, const Meta& meta, const Results& topology,
                      DiagnosisDoc shape) {
  JobOutcome out;
  out.doc = std::move(shape);
  DiagnosisDoc& doc = out.doc;
  const auto& rounds = plan.pair_rounds;
  for (const auto& s : plan.stages) doc.stages.push_back({s.name, s.rounds, 0, s.skipped_why});
  auto stage = [&](const char* name) -> StageRecord& {
    for (StageRecord& s : doc.stages)
      if (s.name == name) return s;
    throw std::logic_error(std::string("no stage ") + name);
  };
  auto stopped_before = [&](const char* name) {
    if (!stop_agreed(ctx, out)) return false;
    skip_after_stop(doc, name);
    return true;
  };

  if (stage("intra-node").rounds > 0) {
    say_stage(ctx, "stage intra-node: every node alone, all at once");
    StageClock clock;
    const std::vector<PartRun> parts = run_per_node(ctx);
    for (const PartRun& p : parts)
      for (NodeResult& n : doc.nodes)
        if (n.host == p.nodes.at(0)) {
          n.busbw_gbps = busbw_at(p.run, doc.bandwidth_bytes);
          n.latency_us = time_at(p.run, doc.latency_bytes);
          n.limit_gbps = limit_of(topology, p.run);
          add_gpus(doc, n.host, p.run);
        }
    out.files.push_back(stage_file("intra_node", meta, topology, parts, "node"));
    stage("intra-node").duration_s = clock.seconds();
  }
  if (stopped_before("pair probe")) return out;
  if (stage("pair probe").rounds > 0 && probe) {
    say_stage(ctx, "stage pair probe: " + std::to_string(rounds.size()) + " round(s)");
    StageClock clock;
    for (const net::Round& round : rounds)
      for (const PairProbe& p : probe_pair_round(ctx, round, *probe)) add_probe(out, p);
    stage("pair probe").duration_s = clock.seconds();
  } else if (!probe) {
    stage("pair probe").rounds = 0;
    stage("pair probe").skipped_why = "--probe none";
  }
  if (stopped_before("pair collective")) return out;
  if (stage("pair collective").rounds > 0) {
    say_stage(ctx, "stage pair collective (" + std::string(ctx.gpus ? "nccl" : "mpi") + "): " + std::to_string(rounds.size()) + " round(s)");
    StageClock clock;
    std::vector<PartRun> all;
    for (const net::Round& round : rounds)
      for (PartRun& p : run_pair_round(ctx, round)) {
        PairResult& e = pair_entry(doc, p.nodes);
        e.busbw_gbps = busbw_at(p.run, doc.bandwidth_bytes);
        e.latency_us = time_at(p.run, doc.latency_bytes);
        e.busbw_limit_gbps = limit_of(topology, p.run);
        all.push_back(std::move(p));
      }
    out.files.push_back(stage_file("pairs", meta, topology, all, "pair"));
    confirm_slow_pairs(ctx, rounds, meta, topology, out);
    stage("pair collective").duration_s = clock.seconds();
  }
  if (stopped_before("all nodes")) return out;
  if (stage("all nodes").rounds > 0) {
    say_stage(ctx, "stage all nodes: one run over every rank");
    StageClock clock;
    const std::vector<PartRun> parts = run_all_nodes(ctx);
    if (!parts.empty()) {
      doc.all_busbw_gbps = busbw_at(parts.front().run, doc.bandwidth_bytes);
      doc.all_latency_us = time_at(parts.front().run, doc.latency_bytes);
      // A GPU that holds every rank back shows in the all-node run too (and only there with one
      // GPU per node).
      const RunResult& run = parts.front().run;
      add_stragglers(doc, run, [&](int rank) { return node_of(ctx, run, rank); });
    }
    out.files.push_back(stage_file("all_nodes", meta, topology, parts, "all"));
    stage("all nodes").duration_s = clock.seconds();
  }
  return out;
}

}  // namespace cctune::app::diagnose
