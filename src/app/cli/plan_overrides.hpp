#pragma once
// What a search space, verify or diagnose sets in a sweep plan in place of the command line's
// defaults, as typed values (in the spirit of UCX perftest's typed params merge). The caller
// leaves a field empty where the user typed its flag, so that the flag wins; resolve_sweep
// puts a set field where it would have parsed the flag's default text, and then checks the
// whole plan once (runtime::check_plan). No value goes back into a string to be parsed again.
#include <optional>
#include <vector>

#include "core/collective.hpp"
#include "core/point_space.hpp"
#include "core/results.hpp"
#include "core/sizes.hpp"
#include "runtime/sweep_plan.hpp"
#include "tuner/search/strategy.hpp"

namespace cctune::app {

struct PlanOverrides {
  std::optional<std::vector<Collective>> collectives;  // in place of --collectives
  std::optional<SizeSequence> sizes;                  // in place of -b/-e/-f/-i/--sizes together
  // In place of -d: each type is judged as if named, so one the backend cannot run is an error.
  std::optional<std::vector<DType>> dtypes;
  std::optional<std::vector<bool>> placements;  // in place of --placement (in_place values)
  std::optional<int> warmup_iters;               // -w
  std::optional<int> min_iters;                  // --min-iters
  std::optional<double> max_time_s;              // --max-time
  std::optional<double> target_noise;            // --target-noise
  std::optional<tuner::search::StrategyKind> strategy;  // --strategy (NCCL backend)
  std::optional<std::vector<PointConfig>> configs;      // --configs (NCCL backend), counted in the plan check
  // --workload: measure exactly these shapes, in place of the grid above and its flags (their
  // collectives and types are judged as the grid's are): the form the workload is planned in.
  std::optional<PointShapes> shapes;
};

}  // namespace cctune::app
