#include "app/run/prepared_job.hpp"

#include <utility>

#include "app/cli/version_check.hpp"
#include "app/run/plan_agreement.hpp"
#include "runtime/signals.hpp"
#include "runtime/sweep_plan.hpp"

namespace cctune::app {

PreparedJob prepare_nccl_job(Session& session, const SweepArgs& args, const MakePoints& make_points, ExistingResults existing) {
  runtime::install_stop_handlers();
  RankComm& comm = session.comm();
  const auto gpus = runtime::query_nccl_backend(comm, session.executable(), /*required=*/true);
  SweepPlan plan = resolve_settings(args, true, gpus->device_count > 0);
  runtime::NcclJob job(supervisor_of(session), plan.nccl, gpus->device_count);  // placed once
  const SettingsParts parts = make_points(plan, job.shape());
  agree_on_plan(comm, to_json(plan));  // node-local files that differ would give ranks other points
  check_job_consistency(session, {{"nccl", gpus->nccl_version}});
  JobFiles files = open_job_files(session, plan.output_dir, existing);
  Meta meta = sweep_meta(session, plan, gpus, parts);  // collective: every rank takes part
  return PreparedJob{std::move(plan), std::move(job), std::move(files), std::move(meta), *gpus};
}

int run_prepared_job(Session& session, PreparedJob& prepared,
                     std::function<int(const Results& results, const runtime::SweepOutcome& outcome)> conclude) {
  JobRun run;
  run.initial.meta = std::move(prepared.meta);
  run.files = std::move(prepared.files);
  run.measure = [&](Reporter& reporters) { return prepared.job.run(prepared.plan, reporters); };
  run.conclude = std::move(conclude);
  return run_job(session, std::move(run));
}

}  // namespace cctune::app
