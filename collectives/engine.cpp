#include "collectives/engine.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "collectives/arrival_skew.hpp"
#include "core/overlap_math.hpp"
#include "core/statistics.hpp"

namespace cctune {
namespace {
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int clamp_ops(double ops) { return static_cast<int>(std::clamp(std::floor(ops), 1.0, static_cast<double>(INT_MAX))); }

BatchRequest request(int n, BatchKind kind, const BatchPlan& plan, const MeasureSettings& s) {
  BatchRequest r;
  r.n = n;
  r.kind = kind;
  r.check_every = plan.check_every;
  r.stop_requested = s.stop_requested ? &s.stop_requested : nullptr;
  return r;
}

int ran_of(const BatchTiming& t, int n) { return t.ran > 0 ? t.ran : n; }

// Warm-up as a batch is run: no longer than a batch may last (the point's time cap bounds it,
// whatever -w says), and ended by a stop request agreed across ranks. `one_us`: the first
// operation's time, agreed by every rank, so every rank derives the same cap from it.
bool warm_up(CollectiveBackend& backend, const MeasureSettings& s, double one_us) {
  if (s.warmup_iters <= 1) return true;
  BatchPlan plan;
  plan.check_every = s.stop_requested ? clamp_ops(kStopCheckEveryUs / one_us) : 0;
  const int n = std::min(s.warmup_iters - 1, clamp_ops(max_batch_us(s) / one_us));
  return !backend.run_batch(request(n, BatchKind::Wall, plan, s)).interrupted;
}

PointResult interrupted(PointResult result) {
  result.stop_reason = StopReason::Interrupted;
  return result;
}

// What every measured point adds from its samples: bandwidth, what NCCL ran and offered.
void with_figures(PointResult& result, CollectiveBackend& backend, const PointSpec& spec, const std::vector<double>& samples,
                  double batch_us, int nranks) {
  result.iter_us = summarize(samples);
  result.iterations = result.iter_us.count;
  result.batch_us = batch_us;
  const Bandwidth bw = bandwidth(spec.collective, spec.bytes.bw_bytes, result.batch_us, nranks);
  result.algbw_GBps = bw.algbw_GBps;
  result.busbw_GBps = bw.busbw_GBps;
  const PointConfig ran = backend.chosen();
  result.chosen_algo = ran.algo;
  result.chosen_proto = ran.proto;
  result.chosen_channels = ran.channels;
  result.offered_algos.known = backend.offered_algorithms();
  if (const auto impl = backend.implementation()) result.impl = impl;
}

// A forced configuration whose operation outlasts the point's whole time cap twice running
// (the first may carry NCCL's lazy connection set-up) is out of the running: the second
// operation is its one sample, in place of the three rounds of three operations the stop
// rule's minimum costs (ring/LL at 64 MiB over a 25 Gb/s socket link: 2.3 s each, 35 s a
// point in a race capped at 0.5 s a point). One sample's interval is the time itself, so no
// rule rests on it. NCCL's own choice, the reference every decision is made against, keeps
// the minimum. Returns true with `result` filled in; else `first_us` is the last operation's
// time, agreed by every rank, for the warm-up.
bool out_of_the_running(CollectiveBackend& backend, RankComm& comm, const PointSpec& spec, const MeasureSettings& settings,
                        PointResult& result, double& first_us) {
  const auto one_op = [&] { return std::max(comm.max(backend.run_wall(1).wall_us), 1e-3); };
  first_us = one_op();
  const double cap_us = settings.stop.max_time_s * 1e6;
  if (spec.config.is_default() || first_us < cap_us) return false;
  first_us = one_op();
  if (first_us < cap_us) return false;
  result.rel_noise = std::numeric_limits<double>::infinity();
  result.stop_reason = StopReason::Time;
  with_figures(result, backend, spec, {first_us}, first_us, comm.size());
  return true;
}

}  // namespace

PointResult describe_point(const PointSpec& spec) {
  PointResult r;
  r.collective = spec.collective;
  r.dtype = spec.dtype;
  r.op = spec.op;
  r.in_place = spec.in_place;
  if (is_rooted(spec.collective)) r.root = spec.root;
  r.size_bytes = spec.bytes.size_bytes;
  r.count = spec.bytes.param_count;
  r.config = spec.config;
  r.impl = spec.impl;
  return r;
}

std::optional<BatchPlan> plan_batches(CollectiveBackend& backend, RankComm& comm, const MeasureSettings& settings) {
  // The slowest rank's single operation, agreed by all: every rank derives the same sizes.
  const double probe_us = std::max(comm.max(backend.run_wall(1).wall_us), 1e-3);
  const int cap = clamp_ops(max_batch_us(settings) / probe_us);
  BatchPlan plan;
  plan.check_every = settings.stop_requested ? clamp_ops(kStopCheckEveryUs / probe_us) : 0;
  plan.per_op_ops = std::clamp(settings.batch_iters, 1, cap);
  plan.wall_ops = plan.per_op_ops;
  if (settings.min_batch_us <= 0) return plan;
  // A batch slowed by a preemption would stop the growth too early, so the size must
  // reach the target twice in a row.
  int long_enough = 0;
  for (;;) {
    const BatchTiming t = backend.run_batch(request(plan.wall_ops, BatchKind::Wall, plan, settings));
    if (t.interrupted) return std::nullopt;
    const double slowest_us = std::max(comm.max(t.wall_us), 1e-3);
    // A timed batch says more than the probe (one operation, right after a barrier).
    if (plan.check_every > 0) plan.check_every = clamp_ops(kStopCheckEveryUs * plan.wall_ops / slowest_us);
    if (plan.wall_ops >= cap) return plan;
    if (slowest_us >= settings.min_batch_us) {
      if (++long_enough == 2) return plan;
      continue;
    }
    long_enough = 0;
    // google/benchmark's rule: aim 40 % past the target from a batch that lasted at least a
    // tenth of it, else grow 10x. No larger minimum step: a longer batch is more exposed to
    // preemption on a busy host.
    const double grow = slowest_us >= 0.1 * settings.min_batch_us ? 1.4 * settings.min_batch_us / slowest_us : 10.0;
    plan.wall_ops = std::min(cap, std::max(plan.wall_ops + 1, clamp_ops(std::ceil(plan.wall_ops * grow))));
  }
}

namespace {

// `--overlap` (docs/TUNING.md "Collectives beside compute"): per round, the slowest rank's compute
// slowdown in the per-operation batch; the point's figures from their median.
class OverlapRounds {
 public:
  void add(RankComm& comm, const BatchTiming& per_op) {
    if (!per_op.overlap) return;  // the same on every rank (a plan setting): every rank reduces or none
    seen_ = true;
    if (const double s = comm.max(per_op.compute_slowdown); s > 0) slowdowns_.push_back(s);
  }
  // Rounds 0 (no window told; slowdown 1, compute_us 0) still say the point ran beside the load.
  std::optional<PointOverlap> figures(double batch_us) const {
    if (!seen_) return std::nullopt;
    PointOverlap o;
    o.rounds = static_cast<int>(slowdowns_.size());
    if (!slowdowns_.empty()) o.compute_slowdown = median(slowdowns_);
    o.compute_us = compute_us_of(batch_us, o.compute_slowdown);
    o.compute_halfwidth_us = compute_halfwidth_us(batch_us, slowdowns_);
    return o;
  }

 private:
  bool seen_ = false;
  std::vector<double> slowdowns_;
};

}  // namespace

PointResult measure_point(CollectiveBackend& backend, RankComm& comm, const PointSpec& spec,
                          const MeasureSettings& settings) {
  PointResult result = describe_point(spec);
  const std::string why_not = backend.unsupported_reason(spec);
  // A point runs only if it runs everywhere; otherwise all ranks skip it together.
  if (comm.any(!why_not.empty())) {
    result.status = PointStatus::Skipped;
    result.reason = why_not.empty() ? "unsupported on another rank" : why_not;
    return result;
  }

  backend.prepare(spec);
  if (settings.check) {
    backend.run_wall(1);
    const long wrong = backend.count_wrong();
    result.wrong = comm.any(wrong == kNotChecked) ? -1 : static_cast<long>(comm.sum(static_cast<double>(wrong)));
    backend.prepare(spec);  // in-place operations overwrote their inputs
  }
  if (settings.warmup_iters > 0) {
    double first_us = 0;
    if (out_of_the_running(backend, comm, spec, settings, result, first_us)) return result;
    if (!warm_up(backend, settings, first_us)) return interrupted(result);
  }
  comm.barrier();
  const auto t0 = std::chrono::steady_clock::now();
  const std::optional<BatchPlan> plan = plan_batches(backend, comm, settings);
  if (!plan) return interrupted(result);

  NoiseCriterion criterion(settings.stop);
  std::vector<double> batch_means;
  OverlapRounds overlap;
  ArrivalSkew skew;
  for (;;) {
    // One untimed operation first: the cross-rank exchanges between rounds (and the
    // barrier before the first) perturb the next launch; on H200s a single first-launch
    // stall of ~1.6 ms was seen to inflate a 20-operation batch five-fold.
    backend.run_wall(1);
    // The wall batch and the per-operation batch run back to back, with no cross-rank
    // step between them; neither disturbs the other's timing.
    const BatchTiming wall = backend.run_batch(request(plan->wall_ops, BatchKind::Wall, *plan, settings));
    if (wall.interrupted) return interrupted(result);
    BatchTiming per_op = backend.run_batch(request(plan->per_op_ops, BatchKind::PerOp, *plan, settings));
    if (per_op.interrupted) return interrupted(result);
    // Per-iteration: the slowest rank defines the operation's time; the same reduction
    // yields the fastest, from which each rank's wait for the last arrival follows.
    const double own_batch_us = wall.wall_us / ran_of(wall, plan->wall_ops);
    skew.add_round(comm, per_op.iter_us, own_batch_us);
    criterion.add(per_op.iter_us);
    // Batch: host time per operation averaged over ranks, as nccl-tests reports.
    batch_means.push_back(comm.sum(own_batch_us) / comm.size());
    overlap.add(comm, per_op);
    // Rank 0's clock decides the time cap for everyone; any rank's stop request ends the point.
    double agreed[2] = {comm.rank() == 0 ? seconds_since(t0) : 0.0,
                        settings.stop_requested && settings.stop_requested() ? 1.0 : 0.0};
    comm.allreduce_max(agreed);
    if (agreed[1] > 0.5) return interrupted(result);
    const double elapsed = agreed[0];
    const bool enough_batches = static_cast<int>(batch_means.size()) >= settings.min_batches ||
                                criterion.reason(elapsed) != StopReason::Noise;
    if (criterion.is_finished(elapsed) && enough_batches) {
      result.stop_reason = criterion.reason(elapsed);
      break;
    }
  }
  result.ranks = gather_rank_timings(comm, skew.row());
  result.rel_noise = criterion.relative_noise();
  with_figures(result, backend, spec, criterion.samples(), median(batch_means), comm.size());
  result.overlap = overlap.figures(result.batch_us);
  return result;
}

}  // namespace cctune
