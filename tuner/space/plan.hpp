#pragma once
// A search space expanded for one job: the groups to run (with their env resolved), each
// group's points, what is skipped and why, and a rough duration. `cctune sweep --space S
// --dry-run` prints it; the runtime iterates it.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/point_space.hpp"
#include "core/results.hpp"
#include "tuner/space/feasibility.hpp"
#include "tuner/space/space.hpp"

namespace cctune::tuner {

struct PlannedPoint {
  Collective collective = Collective::AllReduce;
  std::uint64_t size_bytes = 0;  // requested size, rounded to the collective's granule
  PointConfig config;
  DType dtype = DType::Float32;
  ReduceOp op = ReduceOp::Sum;
  std::optional<P2pImpl> impl;  // alltoall, gather, scatter
  int root = 0;                 // rooted collectives
  bool in_place = false;
};

// What each group measures besides its env. dimensions_of(space) is the space alone;
// `cctune sweep` passes its resolved plan's point space instead (SweepPlan::space), where
// the flags typed beside --space (--collectives, -b/-e, -d, --op, --root, --placement,
// --p2p-impl) have replaced the space's values, so the dry run lists the points the run
// measures: both walk the one point space (core/point_space.hpp), with the rank count when known.
struct PlanDimensions {
  PointSpace space;
  std::vector<PointConfig> configs;
  MeasureSpec measure;  // for the estimate
};
PlanDimensions dimensions_of(const SearchSpace& space);

// One configuration left out of a group, for every size.
struct SkippedConfig {
  Collective collective = Collective::AllReduce;
  PointConfig config;
  std::string reason;
  std::size_t points = 0;  // sizes it would have had
};

struct PlannedGroup {
  std::string name;
  std::map<std::string, std::string> env;  // placeholders resolved
  int channel_ceiling = 0;                 // 0: NCCL's own
  std::string skip_reason;                 // non-empty: the whole group is skipped
  std::vector<PlannedPoint> points;
  std::vector<SkippedConfig> skipped;
};

// A rough duration model (the dry run says "estimated"): per group a fixed start-up, per
// point an overhead plus (warmup + typical iterations) x op time, capped by max_time_s.
struct EstimateModel {
  double group_startup_s = 8.0;   // spawn workers, NCCL init, warm-up
  double point_overhead_s = 0.05; // agreement between ranks, launch, sync
  int typical_iterations = 100;   // the noise target is usually met around here
  double latency_us = 10.0;       // op time ~ latency + bytes / bandwidth
  double bandwidth_GBps = 100.0;
  double halving_share = 0.3;     // successive halving's share of the measuring time (tests: ~22%)
  // One point: an overhead plus (warmup + the larger of min_iters and typical_iterations)
  // iterations of latency + bytes / bandwidth, at most max_time_s. The space's dry run and the
  // workload's both use it.
  double point_seconds(const MeasureSpec& measure, std::uint64_t bytes) const;
};

struct SpacePlan {
  std::string space;
  search::StrategyKind strategy = search::StrategyKind::Exhaustive;
  std::vector<PlannedGroup> groups;
  std::size_t points = 0;          // to measure
  std::size_t skipped_points = 0;  // left out with a reason
  double estimated_s = 0;          // exhaustive over every point
  double estimated_halving_s = 0;  // with the successive-halving strategy
};

SpacePlan plan_space(const SearchSpace& space, const SpaceContext& context, const PlanDimensions& dimensions, const EstimateModel& model = {});
// The space alone: plan_space(space, context, dimensions_of(space), model).
SpacePlan plan_space(const SearchSpace& space, const SpaceContext& context, const EstimateModel& model = {});
// The dry-run text: one block per group, skipped configurations aggregated by reason.
std::string format_plan(const SpacePlan& plan);

}  // namespace cctune::tuner
