#include "app/workload_input/plan_workload_for.hpp"

#include <utility>

#include "comm/rank_agreement.hpp"

namespace cctune::app {

JobWorkload plan_workload_for(Session& session, const LoadedWorkload& loaded, JobShape job, WorkloadLimits limits, const SweepArgs& args,
                              bool nccl_usable, bool gpus_present, const OverridesFor& overrides_for) {
  workload::WorkloadPlan plan;
  agree_on_errors(session.comm(), [&] { plan = workload::plan_workload(loaded.workload, job, limits.sizes, limits.rare_shapes); });
  PlanOverrides overrides = overrides_for ? overrides_for(plan) : PlanOverrides{};
  apply_workload(plan, overrides);
  SweepPlan sweep = resolve_sweep(args, nccl_usable, gpus_present, overrides);
  nlohmann::json settings = workload_settings(loaded, job, plan);
  return JobWorkload{std::move(plan), std::move(settings), std::move(sweep)};
}

}  // namespace cctune::app
