#pragma once
// "Plan this workload for this job", once for `sweep --workload` and `verify --workload`: the
// job's shapes this allocation reproduces (workload::plan_workload, agreed on every rank) take
// the place of the grid flags, and the plan is resolved with them; meta.settings.workload
// records what was planned. docs/WORKLOAD.md.
#include <cstddef>
#include <functional>
#include <nlohmann/json.hpp>

#include "app/cli/plan_overrides.hpp"
#include "app/cli/session.hpp"
#include "app/cli/sweep_options.hpp"
#include "app/workload_input/workload_input.hpp"
#include "workload/workload_plan.hpp"

namespace cctune::app {

struct WorkloadLimits {
  std::size_t sizes = workload::default_workload_sizes;  // --workload-sizes
  bool rare_shapes = false;                              // --workload-rare-shapes
};

struct JobWorkload {
  workload::WorkloadPlan plan;  // the job's shapes this allocation reproduces, with their weights
  nlohmann::json settings;      // meta.settings.workload (workload_settings)
  SweepPlan sweep;              // resolved with the job's shapes in place of the grid flags
};

// What else takes the place of flags, made once the job's plan is known (a space's values,
// narrowed to the job's collectives, sizes and types); none by default.
using OverridesFor = std::function<PlanOverrides(const workload::WorkloadPlan& plan)>;

// Collective. Throws the same UsageError on every rank when no shape of the job fits `job`,
// and resolve_sweep's errors for the rest of the flags.
JobWorkload plan_workload_for(Session& session, const LoadedWorkload& loaded, JobShape job, WorkloadLimits limits, const SweepArgs& args,
                              bool nccl_usable, bool gpus_present, const OverridesFor& overrides_for = {});

}  // namespace cctune::app
