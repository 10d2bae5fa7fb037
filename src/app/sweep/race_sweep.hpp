#pragma once
// `cctune sweep --budget-s S`: the racing sweep (issue 46; docs/TUNING.md "The race"). The
// space's groups run one after another as in a grid sweep, but at first only at NCCL's own
// choice and briefly, in the order the transport suggests (tuner/search/race.hpp); after each
// round tune's own scoring on the points so far names the groups the noise leaves undecided,
// and only those run again beside the reference, longer, while the budget allows; the forced
// algorithm/protocol/channel variants then run in the chosen group alone. Every round's runs
// reach the sweep's reporters as runs of their own (RunResult::race_round); results.json folds
// them into one run per group (core/race_rounds.hpp).
#include <functional>
#include <string>

#include "app/cli/session.hpp"
#include "core/reporter.hpp"
#include "core/results.hpp"
#include "runtime/nccl_job.hpp"
#include "runtime/sweep_plan.hpp"
#include "tuner/selection/selection.hpp"
#include "tuner/space/space.hpp"

namespace cctune::app {

struct RaceInputs {
  double budget_s = 0;                        // --budget-s
  const tuner::SearchSpace* space = nullptr;  // the groups' requirements (their race order)
  Meta meta;                                  // the sweep's meta: tune's options read the job's weights from it
  // Rank 0: tune's options for the points so far (the sweep's own, the confirmation left out).
  std::function<tuner::TuneOptions(const Results&)> tune_options;
};

// The race's budget: --budget-s as typed (`typed` >= 0), else 120 s for a workload sweep, which a
// user waits for, and none (the grid) for the others.
inline double race_budget_s(double typed, bool workload) { return typed >= 0 ? typed : workload ? 120.0 : 0.0; }

// Rank 0, on a dry run that would race (`budget_s` > 0): one line saying so.
void say_race_plan(double budget_s);

// Collective: races `plan`'s groups (its configs: NCCL's own choice first, then the forced ones)
// on `job`'s workers, reporting every round to `reporters`. Returns the outcome over every round
// (a stop by signal ends it at once).
runtime::SweepOutcome run_race(Session& session, const runtime::NcclJob& job, const runtime::SweepPlan& plan, Reporter& reporters,
                               const RaceInputs& inputs);

}  // namespace cctune::app
