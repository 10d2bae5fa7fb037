#pragma once
// `cctune sweep --workload FILE` (issue #25): the plan takes its collectives, sizes and data
// types from the job's shapes this allocation can reproduce (workload/workload_plan.hpp); the
// results record the per-point weights (meta.settings.workload) so `cctune tune` can weigh
// its choices by the job's time later, without the file. docs/WORKLOAD.md.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/cli/plan_overrides.hpp"
#include "app/cli/session.hpp"
#include "app/cli/sweep_options.hpp"
#include "tuner/selection/job_time.hpp"
#include "workload/workload_plan.hpp"

namespace cctune::app {

struct LoadedWorkload {
  std::string path;    // as given
  std::string sha256;  // of the file's bytes
  workload::Workload workload;
};

// Reads and checks a workload file (size and depth limits; UsageError naming the path, after
// `argument`, the option that gave it: "--workload"; empty for a positional argument, so that an
// error names no flag the user did not pass).
LoadedWorkload load_workload(const std::string& path, const std::string& argument = "--workload");
// Collective: rank 0 reads the file and every rank gets its text, so all plan the same.
LoadedWorkload load_workload_on_rank0(Session& session, const std::string& path, const std::string& argument = "--workload");

// The job's shapes from `plan` as the plan's point space, in place of the grid's flags: the
// sweep measures those shapes, not a product of lists.
void apply_workload(const workload::WorkloadPlan& plan, PlanOverrides& overrides);

// meta.settings.workload: the file (path, sha256), the job shape it was planned for, and per
// point its calls and time per step.
nlohmann::json workload_settings(const LoadedWorkload& w, JobShape job, const workload::WorkloadPlan& plan);
// What a workload sweep recorded for `cctune tune` to weigh its choices by.
struct RecordedWorkload {
  std::vector<JobPoint> weights;  // one per planned point
  bool per_step = true;           // the weights count calls per step (false: per capture, the steps were unknown)
  double step_us = 0;             // the job's step time from its capture (0: not timed)
};
// The results' meta.settings.workload as workload_settings writes it, parsed once
// (core/result_section.hpp); nullptr when the sweep had no --workload. A record of another form
// is a UsageError of one line naming the field.
const RecordedWorkload* recorded_workload_of(const Results& results);
std::vector<JobPoint> job_weights_of(const workload::WorkloadPlan& plan);
// Puts the weights of `plan` (none: a sweep without --workload) in place as the value
// recorded_workload_of reads, for settings written in this process with workload_settings.
void seed_recorded_workload(ResultSection& settings, const workload::WorkloadPlan* plan);

}  // namespace cctune::app
