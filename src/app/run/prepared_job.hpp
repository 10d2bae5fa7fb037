#pragma once
// The one set-up of a measuring command on NCCL workers (verify, replay): stop handlers, the
// GPU query, the run settings, the workers placed once (runtime::NcclJob), the command's points
// for the job's shape, the ranks' agreement on the plan, one set of library versions, the
// output files locked, and the results' meta, always in this order. The order matters: the
// points depend on the placement (a workload's shapes, a replayed step's rank count), and
// nothing is written before every rank holds the same plan.
#include <functional>

#include "app/cli/session.hpp"
#include "app/cli/sweep_options.hpp"
#include "app/run/job_run.hpp"
#include "runtime/nccl_job.hpp"
#include "runtime/query.hpp"

namespace cctune::app {

struct PreparedJob {
  SweepPlan plan;  // settled: every rank agreed on it
  runtime::NcclJob job;
  JobFiles files;  // -o checked and locked
  Meta meta;       // what results.json starts from
  runtime::GpuQuery gpus;
};

// Fills `plan` (holding the run settings, resolve_settings) with the command's point space and
// config groups for the placed job's `shape`; returns the parts of meta.settings beside the plan.
using MakePoints = std::function<SettingsParts(SweepPlan& plan, JobShape shape)>;

// Collective: the set-up above; `existing` says what earlier results in -o do (--force).
// Throws the same error on every rank when a step fails.
PreparedJob prepare_nccl_job(Session& session, const SweepArgs& args, const MakePoints& make_points, ExistingResults existing);

// Collective: run_job of the prepared plan on its placed job; `conclude` as JobRun's.
int run_prepared_job(Session& session, PreparedJob& prepared,
                     std::function<int(const Results& results, const runtime::SweepOutcome& outcome)> conclude);

}  // namespace cctune::app
