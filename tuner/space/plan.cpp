#include "tuner/space/plan.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>

#include "core/error.hpp"
#include "core/plan_limits.hpp"
#include "core/sizes.hpp"
#include "core/text.hpp"
#include "core/units.hpp"
#include "tuner/space/requirements.hpp"

namespace cctune::tuner {
namespace {

int env_int(const std::map<std::string, std::string>& env, const char* key) {
  auto it = env.find(key);
  if (it == env.end()) return 0;
  int v = 0;
  auto [p, ec] = std::from_chars(it->second.data(), it->second.data() + it->second.size(), v);
  return ec == std::errc{} && p == it->second.data() + it->second.size() && v > 0 ? v : 0;
}

std::string resolve_group(const GroupSpec& spec, const SpaceContext& ctx, PlannedGroup& g) {
  for (GroupRequirement r : spec.requires_)
    if (std::string why = unmet_requirement(r, ctx); !why.empty()) return why;
  for (const auto& [k, v] : spec.env) {
    ResolvedValue resolved = resolve_placeholder(k, v, ctx);
    if (!resolved.why.empty()) return resolved.why;
    g.env[k] = std::move(resolved.value);
  }
  return {};
}

}  // namespace

double EstimateModel::point_seconds(const MeasureSpec& measure, std::uint64_t bytes) const {
  const double op_s = (latency_us + static_cast<double>(bytes) / (bandwidth_GBps * 1e3)) * 1e-6;
  const double iterations = measure.warmup + std::max(measure.min_iters, typical_iterations);
  return point_overhead_s + std::min(measure.max_time_s, iterations * op_s);
}

PlanDimensions dimensions_of(const SearchSpace& space) {
  PlanDimensions d;
  d.space.points = PointGrid{space.collectives, space.sizes.expand(), space.dtypes};
  d.configs = in_process_configs(space);
  d.measure = space.measure;
  return d;
}

namespace {

// Each collective of the space's points, in order, with the points one config gives it (sizes
// x placements over its series): one walk per plan, so counting a group costs a feasibility
// check per collective and config, never a walk.
using CollectivePoints = std::vector<std::pair<Collective, double>>;

CollectivePoints collective_points(const PlanDimensions& d, const SpaceContext& ctx) {
  CollectivePoints out;
  for_each_series(d.space, ctx.nranks, [&](const PointSeries& s, const std::vector<std::uint64_t>& sizes) {
    // A job's shapes may come back to a collective: one entry each, in first-seen order.
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& e) { return e.first == s.collective; });
    if (it == out.end()) it = out.insert(out.end(), {s.collective, 0.0});
    it->second += static_cast<double>(sizes.size() * d.space.placements.size());
  });
  return out;
}

// The points a group would measure, counted without making any (issue 24, F6: a 446-byte
// space once planned 10^9 points and ran out of memory doing so).
double count_points(const PlanDimensions& d, const SpaceContext& ctx, const CollectivePoints& per_config, int channel_ceiling,
                    bool no_nvls) {
  double points = 0;
  for (const auto& [c, n] : per_config)
    for (const PointConfig& config : d.configs)
      if (unsupported_reason(c, config, ctx, channel_ceiling, no_nvls).empty()) points += n;
  return points;
}

void refuse_large(const SearchSpace& space, double points) {
  char count[32];
  std::snprintf(count, sizeof count, "%.0f", points);
  throw UsageError("space " + space.name + " plans " + count + " points, more than a sweep may measure (" +
                       std::to_string(max_plan_points) + ")",
                   "narrow the space: fewer sizes (a larger sizes.factor or a shorter list), configs or data types");
}

bool group_disables_nvls(const PlannedGroup& g) {
  const auto nvls = g.env.find("NCCL_NVLS_ENABLE");
  return nvls != g.env.end() && nvls->second == "0";
}

// The group's env and channel ceiling; its skip reason when it cannot run on this job.
PlannedGroup resolve(const GroupSpec& spec, const SpaceContext& ctx) {
  PlannedGroup g;
  g.name = spec.name;
  g.skip_reason = resolve_group(spec, ctx, g);
  if (!g.skip_reason.empty()) return g;
  g.channel_ceiling = env_int(g.env, "NCCL_MAX_CTAS");
  if (!g.channel_ceiling) g.channel_ceiling = env_int(g.env, "NCCL_MAX_NCHANNELS");
  if (!g.channel_ceiling) g.channel_ceiling = ctx.channel_ceiling;
  return g;
}

// Walked after the count cleared the limit: per collective and config, that collective's
// series alone, so the work is the points made.
void fill_group(const PlanDimensions& d, const SpaceContext& ctx, const CollectivePoints& per_config, const EstimateModel& model,
                PlannedGroup& g, SpacePlan& plan) {
  const bool no_nvls = group_disables_nvls(g);
  double seconds = 0;
  for (const auto& [c, n] : per_config) {
    const PointSpace one = only_collective(d.space, c);
    for (const PointConfig& config : d.configs) {
      const std::string why = unsupported_reason(c, config, ctx, g.channel_ceiling, no_nvls);
      if (!why.empty()) {
        g.skipped.push_back({c, config, why, static_cast<std::size_t>(n)});
        plan.skipped_points += static_cast<std::size_t>(n);
        continue;
      }
      for_each_series(one, ctx.nranks, [&](const PointSeries& s, const std::vector<std::uint64_t>& sizes) {
        for (std::uint64_t size : sizes)
          for (bool in_place : d.space.placements) {
            g.points.push_back({s.collective, size, config, s.dtype, s.op, s.impl, s.root, in_place});
            seconds += model.point_seconds(d.measure, size);
          }
      });
    }
  }
  plan.points += g.points.size();
  plan.estimated_s += model.group_startup_s + seconds;
  plan.estimated_halving_s += model.group_startup_s + seconds * model.halving_share;
}

}  // namespace

SpacePlan plan_space(const SearchSpace& space, const SpaceContext& ctx, const EstimateModel& model) {
  return plan_space(space, ctx, dimensions_of(space), model);
}

SpacePlan plan_space(const SearchSpace& space, const SpaceContext& ctx, const PlanDimensions& d, const EstimateModel& model) {
  SpacePlan plan;
  plan.space = space.name;
  plan.strategy = space.strategy;
  // Every group is counted before any is filled: a refusal costs no memory.
  const CollectivePoints per_config = collective_points(d, ctx);
  double total = 0;
  for (const GroupSpec& spec : space.groups) {
    plan.groups.push_back(resolve(spec, ctx));
    const PlannedGroup& g = plan.groups.back();
    if (g.skip_reason.empty()) total += count_points(d, ctx, per_config, g.channel_ceiling, group_disables_nvls(g));
  }
  if (total > static_cast<double>(max_plan_points)) refuse_large(space, total);
  for (PlannedGroup& g : plan.groups)
    if (g.skip_reason.empty()) fill_group(d, ctx, per_config, model, g, plan);
  return plan;
}

std::string format_plan(const SpacePlan& plan) {
  // Names, env values and reasons come from the space file: shown escaped (one line each).
  const auto shown = [](const std::string& x) { return text::terminal_text(x); };
  std::string s = "# space " + shown(plan.space) + ", strategy " + search::to_string(plan.strategy) + "\n";
  char line[640];
  std::size_t skipped_groups = 0;
  for (const PlannedGroup& g : plan.groups) {
    std::string env;
    for (const auto& [k, v] : g.env) env += " " + shown(k) + "=" + shown(v);
    env = text::truncate_utf8(env, 500);  // fits line[] below, cut on a character boundary
    if (!g.skip_reason.empty()) {
      ++skipped_groups;
      s += "group " + shown(g.name) + ": skipped: " + shown(g.skip_reason) + "\n";
      continue;
    }
    std::snprintf(line, sizeof line, "group %s:%s\n  %zu points", text::truncate_utf8(shown(g.name), 100).c_str(), env.empty() ? " (NCCL defaults)" : env.c_str(),
                  g.points.size());
    s += line;
    std::size_t configs = 0;
    std::vector<std::pair<std::string, std::size_t>> reasons;  // reason -> skipped points, first-seen order
    for (const SkippedConfig& k : g.skipped) {
      ++configs;
      auto it = std::find_if(reasons.begin(), reasons.end(), [&](const auto& r) { return r.first == k.reason; });
      if (it == reasons.end()) reasons.emplace_back(k.reason, k.points);
      else it->second += k.points;
    }
    if (g.channel_ceiling) s += ", channel ceiling " + std::to_string(g.channel_ceiling);
    s += configs ? ", " + std::to_string(configs) + " configurations skipped:\n" : "\n";
    for (const auto& [reason, n] : reasons) s += "    skip " + std::to_string(n) + " points: " + shown(reason) + "\n";
  }
  std::snprintf(line, sizeof line,
                "# %zu group(s) (%zu skipped), %zu points to measure, %zu skipped; estimated %s exhaustive, about %s with halving\n",
                plan.groups.size(), skipped_groups, plan.points, plan.skipped_points, format_duration(plan.estimated_s).c_str(),
                format_duration(plan.estimated_halving_s).c_str());
  s += line;
  return s;
}

}  // namespace cctune::tuner
