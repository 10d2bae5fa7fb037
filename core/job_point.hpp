#pragma once
// The workload vocabulary: one call shape of a job and its weight, as the workload planner
// makes it (workload/workload_plan.hpp), the sweep measures it (SweepPlan::job_shapes), tune
// weighs by it (TuneOptions::job_weights), and verify and replay judge the job's time with it.
// One type, so no layer converts field by field; docs/WORKLOAD.md "Sweeping a workload".
#include <cstddef>
#include <cstdint>

#include "core/collective.hpp"

namespace cctune {

// The communicator a job's calls run on, as NCCL sees it (nodes: NCCL hosts, emulated too).
struct JobShape {
  int nranks = 0;
  int nnodes = 1;
  bool operator==(const JobShape&) const = default;
};

// One size the job issues on one communicator shape: the call shape (collective, data type,
// NCCL's nBytes, which is the sweep's size_bytes: docs/TUNING.md "Which bytes"), and how much
// of the job it stands for. A sweep plan's shapes carry the call shape only.
struct JobPoint {
  Collective collective = Collective::AllReduce;
  DType dtype = DType::Float32;  // of the calls with the most time in the point
  std::uint64_t size_bytes = 0;
  int nranks = 0;  // the communicator; 0 where only the call shape matters (a plan's shapes)
  int nnodes = 0;
  double calls_per_step = 0;    // per training step, or per capture when the steps are unknown
  double time_us_per_step = 0;  // calls x per-call time: what the point weighs in the job
  bool time_estimated = false;  // some per-call time came from the size model, not the capture
  std::size_t shapes = 0;       // the job's call shapes folded into this point (bucketing)
  bool operator==(const JobPoint&) const = default;
};

}  // namespace cctune
