#pragma once
// `cctune sweep --space NAME`: a search space (tuner/space, docs/TUNING.md) sets the sweep's
// collectives, sizes, dtype, measurement settings, in-process configs, strategy and config
// groups; a flag the user typed wins over the space. The groups are planned for this job
// (ranks, nodes, the NICs nearest the GPUs): what NCCL cannot run is skipped with a reason.
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "app/cli/sweep_options.hpp"
#include "core/results.hpp"
#include "tuner/space/plan.hpp"
#include "tuner/space/space.hpp"

namespace cctune::app {

// The space's values for the plan fields whose flags the user did not type (`typed(option)`
// is false for "--collectives", ...), for resolve_sweep. A typed -b/-e/-f narrows or steps the
// space's sizes and is read from `args`. Throws UsageError for options a space replaces
// (--configs, --env-group, --transport), and when no size of a space's list is within -b/-e.
PlanOverrides space_overrides(const tuner::SearchSpace& space, const std::function<bool(const std::string&)>& typed,
                              const SweepArgs& args);

// The space's in-process configs: NCCL's own choice first, then every forced (algorithm,
// protocol, channels) of the product; "auto" pairs only with "auto".
std::vector<PointConfig> space_configs(const tuner::SearchSpace& space, bool graph);

// What the resolved plan measures per group, for plan_space: the same collectives, sizes,
// data types, ops, roots, placements, p2p implementations and configs as the run, so that a
// dry run lists what the run would measure with the same flags.
tuner::PlanDimensions plan_dimensions(const SweepPlan& plan);

// RDMA devices nearest any GPU, as the topology's writer derived them (topo::topology_of of
// results holding a cluster topology; none without one).
std::vector<std::string> nearest_nics_of(const Results& topology);

// Replaces the plan's groups with the space plan's (skipped groups left out), each carrying
// the configs it skips for each collective.
void apply_space_plan(const tuner::SpacePlan& space_plan, SweepPlan& plan);

// meta.settings.space: the space, its source, the strategy, and per group what the plan
// skips and why (whole groups, or configs per collective; they never appear as points).
nlohmann::json space_settings(const tuner::SearchSpace& space, const tuner::SpacePlan& space_plan);
// Its name is read back by space_name_of (app/run/recorded_space.hpp).

}  // namespace cctune::app
