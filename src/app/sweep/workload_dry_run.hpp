#pragma once
// The dry run of `--workload` (sweep and verify print it): the job's points with their
// weights, and with a sweep's plan its point count and duration, which need the space's
// measure model (sweep/space_sweep.hpp); the reader below it (workload_input/) stays free of it.
#include <string>

#include "app/cli/sweep_options.hpp"
#include "app/workload_input/workload_input.hpp"

namespace cctune::app {

// The dry run's text: the job's points with their weights, what cannot run here and why, and
// with `sweep` the sweep's point count (the product of collectives, sizes, data types, ops,
// placements, configs and groups) and its estimated duration (a space's plan prints its own).
std::string format_workload_plan(const LoadedWorkload& w, JobShape job, const workload::WorkloadPlan& plan, const SweepPlan* sweep);

}  // namespace cctune::app
