#pragma once
// What one round of the racing sweep measures (docs/TUNING.md "The race"): the sweep's plan cut
// down to the round's groups, configs and shapes, and the shapes a later round measures again.
// Pure: plans in, plans out.
#include <string>
#include <vector>

#include "core/job_point.hpp"
#include "runtime/sweep_plan.hpp"
#include "tuner/search/race.hpp"
#include "tuner/selection/selection.hpp"

namespace cctune::app {

// The plan of one round: its groups in its order, NCCL's own choice only (or every config in the
// variants round, with the space's strategy: NCCL's own choice is measured again beside the
// forced ones, back to back at each size, as the rules are decided against it), its time cap a
// point, and a later round's shapes alone (a workload's; a grid keeps every size).
runtime::SweepPlan round_plan(const runtime::SweepPlan& plan, const tuner::search::RaceRound& r);

// The workload shapes of `plan` that carry most of the undecided intervals' width
// (tuner::search::race_focus), summed over the terms of tune's groups named in `racing` (the
// undecided and tune's choice). Empty (every shape) for a grid plan.
std::vector<JobPoint> race_focus_of(const runtime::SweepPlan& plan, const tuner::TuneOutputs& t, const std::vector<std::string>& racing);

}  // namespace cctune::app
