#pragma once
// Which of a job's call shapes this allocation can reproduce, and how much of the job's time
// each stands for (issue #25: `cctune sweep/verify --workload`, `tune --workload`). Pure: the
// caller says what NCCL will see here (ranks, nodes); docs/WORKLOAD.md "Sweeping a workload".
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/job_point.hpp"
#include "core/point_space.hpp"
#include "workload/workload.hpp"

namespace cctune::workload {

struct UnplannedShape {
  std::string comm_id;
  int nranks = 0;
  int nnodes = 0;
  CallShape shape;
  std::string reason;
};

struct WorkloadPlan {
  std::vector<JobPoint> points;           // by (collective, size)
  std::vector<UnplannedShape> unplanned;  // one per shape that cannot run here, with the reason
  bool per_step = false;                  // the capture knew its steps; otherwise "per capture"
  // The job's step time (the busiest communicator's step cadence, when the capture kept issue
  // times: CCTUNE_WORKLOAD_STEP_TIMES=1); 0 unknown. What a saving per step is held against.
  double step_us = 0;
  bool bucketed = false;                  // a collective had more distinct sizes than the limit
  std::size_t distinct_sizes = 0;         // (collective, size) pairs before bucketing
  std::vector<std::string> notes;         // assumptions made (unknown node counts)
  // What the sweep measures of it: the call shapes above, in order, as the plan's point space
  // holds them (core/point_space.hpp lists their collectives, sizes and types).
  PointShapes shapes() const;
};

// Per-call time when the capture has no duration: latency + bytes / bandwidth. Only the
// weights' proportions matter; docs/WORKLOAD.md says where it misleads.
double estimated_call_us(std::uint64_t bytes);

// Plans `w` for `job`: communicators with job.nranks ranks and job.nnodes nodes (or unknown
// nodes, noted), collective calls only. A collective with more than `max_sizes` distinct sizes
// has them bucketed into `max_sizes` log-spaced buckets of its own, each represented by its
// time-weighted median size.
// Throws UsageError when nothing can be planned (the reasons are in the message).
// A capture of at least kRareMinSteps steps shows which shapes belong to the step: a shape
// called fewer times than a tenth of the steps (DDP's parameter broadcast and first full-model
// all-reduce, once; a checkpoint's every few hundred steps) is start-up or occasional. Its
// share of a long job's time is about nothing, yet its calls are often the largest, so
// measuring it under every configuration took most of a sweep (a 2-node socket DDP job: 201 MB
// broadcasts and all-reduces seen once in 16 steps). Left out, with the reason, unless
// `rare_shapes` (--workload-rare-shapes).
inline constexpr double kRareMinSteps = 10;
inline constexpr double kRareShareOfSteps = 0.1;
WorkloadPlan plan_workload(const Workload& w, JobShape job, std::size_t max_sizes, bool rare_shapes = false);

// The most sizes a workload sweep plans before bucketing (--workload-sizes overrides).
inline constexpr std::size_t default_workload_sizes = 24;

}  // namespace cctune::workload
