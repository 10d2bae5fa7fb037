#pragma once
// The workload vocabulary: one call shape of a job and its weight, as the workload planner
// makes it (workload/workload_plan.hpp), the sweep measures it (SweepPlan::job_shapes), tune
// weighs by it (TuneOptions::job_weights), and verify and replay judge the job's time with it.
// One type, so no layer converts field by field; docs/WORKLOAD.md "Sweeping a workload".
#include <cstddef>
#include <cstdint>

#include <nlohmann/json_fwd.hpp>

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

class JsonFields;

// JobPoint's one JSON form, for results.json's meta.settings (the plan's job_shapes, the
// workload's points) and the confirmation round's broadcast. Two contents, one codec: a plan's
// shapes (nranks 0) are only a call shape, written as {collective, dtype, size_bytes} so that
// meta.settings.job_shapes stays as it was; a job's point (nranks > 0) adds its communicator and
// weight, the nine keys of meta.settings.workload.points.
void to_json(nlohmann::json& j, const JobPoint& p);
// Reads either content: the weight's keys when "nranks" is present. Bounded for files and
// messages from elsewhere: a missing or mistyped field, an unknown name or a count or time out of
// range is a UsageError of one line naming the field by `in`'s path, with `in`'s fix. A record
// without "dtype" (written before the type was kept) reads as float32, the sweep's default.
JobPoint read_job_point(const JsonFields& in);
// nlohmann's ADL hook (`j.get<JobPoint>()`): read_job_point with the path "job point".
void from_json(const nlohmann::json& j, JobPoint& p);

}  // namespace cctune
