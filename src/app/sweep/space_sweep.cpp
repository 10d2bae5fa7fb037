#include "app/sweep/space_sweep.hpp"

#include <cstdint>
#include <set>

#include "core/error.hpp"
#include "core/results_json.hpp"
#include "core/json_fields.hpp"
#include "core/units.hpp"
#include "runtime/worker_plan.hpp"
#include "topology/topology_section.hpp"

namespace cctune::app {
namespace {

// The sizes of a space's list within [lo, hi]; none is an error naming the flags.
std::vector<std::uint64_t> sizes_within(const std::vector<std::uint64_t>& list, const std::string& space, std::uint64_t lo,
                                        std::uint64_t hi) {
  std::vector<std::uint64_t> out;
  for (const auto v : list)
    if (v >= lo && v <= hi) out.push_back(v);
  if (out.empty())
    throw UsageError("no size of space " + space + "'s list lies within --min-bytes/--max-bytes",
                     "widen -b/-e, or give the sizes with --sizes");
  return out;
}

}  // namespace

PlanOverrides space_overrides(const tuner::SearchSpace& space, const std::function<bool(const std::string&)>& typed,
                              const SweepArgs& a) {
  for (const char* replaced : {"--configs", "--env-group", "--transport"})
    if (typed(replaced))
      throw UsageError(std::string(replaced) + " cannot be combined with --space: the space sets the configs and groups",
                       "drop " + std::string(replaced) + ", or copy the space file, edit it and pass its path to --space");
  PlanOverrides o;
  if (!typed("--collectives")) o.collectives = space.collectives;
  // Each size flag you type replaces its part of the space's sizes: -b/-e narrow them,
  // -f changes the step; --sizes or -i replace them whole.
  const SizeSequence& s = space.sizes;
  if (!typed("--sizes") && !typed("--step-bytes")) {
    if (s.list.empty()) {
      SizeSequence seq = s;
      if (typed("--min-bytes")) seq.min_bytes = parse_size(a.min_bytes, "--min-bytes");
      if (typed("--max-bytes")) seq.max_bytes = parse_size(a.max_bytes, "--max-bytes");
      if (typed("--step-factor")) seq.factor = a.factor;
      o.sizes = seq;
    } else if (!typed("--step-factor")) {
      SizeSequence seq;
      seq.list = sizes_within(s.list, space.name, typed("--min-bytes") ? parse_size(a.min_bytes, "--min-bytes") : 0,
                              typed("--max-bytes") ? parse_size(a.max_bytes, "--max-bytes") : UINT64_MAX);
      o.sizes = seq;
    }
  }
  if (!typed("--dtype")) o.dtypes = space.dtypes;
  // NCCL's algorithm choice does not depend on placement: tuning measures out-of-place only.
  if (!typed("--placement")) o.placements = std::vector<bool>{false};
  if (!typed("--warmup-iters")) o.warmup_iters = space.measure.warmup;
  if (!typed("--min-iters")) o.min_iters = space.measure.min_iters;
  if (!typed("--max-time")) o.max_time_s = space.measure.max_time_s;
  if (!typed("--target-noise")) o.target_noise = space.measure.target_noise;
  if (!typed("--strategy")) o.strategy = space.strategy;
  o.configs = space_configs(space, a.graph);  // --configs with --space is refused above
  return o;
}

std::vector<PointConfig> space_configs(const tuner::SearchSpace& space, bool graph) {
  std::vector<PointConfig> out{PointConfig{std::nullopt, std::nullopt, 0, graph}};
  for (const PointConfig& c : tuner::in_process_configs(space, graph))
    if (c != out.front()) out.push_back(c);
  return out;
}

tuner::PlanDimensions plan_dimensions(const SweepPlan& plan) {
  tuner::PlanDimensions d;
  d.space = plan.space;
  d.configs = runtime::point_configs(plan);
  d.measure.warmup = plan.measure.warmup_iters;
  d.measure.min_iters = static_cast<int>(plan.measure.stop.min_iterations);
  d.measure.max_time_s = plan.measure.stop.max_time_s;
  d.measure.target_noise = plan.measure.stop.target_rel_noise;
  return d;
}

std::vector<std::string> nearest_nics_of(const Results& topology) {
  std::set<std::string> seen;
  std::vector<std::string> out;
  const topo::Topology* t = topo::topology_of(topology);
  if (!t) return out;
  for (const topo::NodeTopology& node : t->nodes)
    if (node.derived)
      for (const topo::GpuDerived& gpu : node.derived->gpus)
        for (const std::string& nic : gpu.nearest_nics)
          if (seen.insert(nic).second) out.push_back(nic);
  return out;
}

void apply_space_plan(const tuner::SpacePlan& sp, SweepPlan& plan) {
  std::vector<runtime::ConfigGroup> groups;
  for (const tuner::PlannedGroup& g : sp.groups) {
    if (!g.skip_reason.empty()) continue;
    runtime::ConfigGroup group{g.name, g.env, {}};
    for (const tuner::SkippedConfig& k : g.skipped) {
      PointConfig config = k.config;
      config.graph = plan.nccl.graph;
      group.skips.push_back({k.collective, config, k.reason});
    }
    groups.push_back(std::move(group));
  }
  if (groups.empty())
    throw UsageError("space " + sp.space + ": every config group is skipped on this job (see --dry-run)",
                     "use a space with a group that has no requirements, e.g. --space default");
  plan.nccl.groups = std::move(groups);
}

nlohmann::json space_settings(const tuner::SearchSpace& space, const tuner::SpacePlan& sp) {
  nlohmann::json groups = nlohmann::json::array();
  for (const tuner::PlannedGroup& g : sp.groups) {
    nlohmann::json j = {{"name", g.name}, {"env", g.env}};
    if (!g.skip_reason.empty()) {
      j["skipped"] = g.skip_reason;
    } else {
      j["points"] = g.points.size();
      nlohmann::json skipped = nlohmann::json::array();
      for (const tuner::SkippedConfig& k : g.skipped)
        skipped.push_back({{"collective", to_string(k.collective)}, {"config", k.config}, {"reason", k.reason}});
      j["skipped_configs"] = std::move(skipped);
    }
    groups.push_back(std::move(j));
  }
  return {{"name", space.name}, {"source", space.source}, {"strategy", tuner::search::to_string(sp.strategy)}, {"groups", std::move(groups)}};
}

}  // namespace cctune::app
