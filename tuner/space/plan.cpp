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

// As the run rounds them (enumerate_points); with the rank count unknown, as requested.
std::vector<std::uint64_t> sizes_for(const PlanDimensions& d, Collective c, DType dtype, const SpaceContext& ctx) {
  std::vector<std::uint64_t> out;
  out.reserve(d.sizes.size());
  for (std::uint64_t requested : d.sizes)
    out.push_back(ctx.nranks > 0
                      ? collective_bytes(c, round_to_granule(requested, request_granule(c, dtype, ctx.nranks)), dtype, ctx.nranks).size_bytes
                      : requested);
  return out;
}

double point_seconds(const MeasureSpec& measure, std::uint64_t bytes, const EstimateModel& m) {
  const double op_s = (m.latency_us + static_cast<double>(bytes) / (m.bandwidth_GBps * 1e3)) * 1e-6;
  const double iterations = measure.warmup + std::max(measure.min_iters, m.typical_iterations);
  return m.point_overhead_s + std::min(measure.max_time_s, iterations * op_s);
}

// One (implementation, data type, op, root) of a collective: the run's blocks of sizes.
struct Block {
  std::optional<P2pImpl> impl;
  DType dtype = DType::Float32;
  ReduceOp op = ReduceOp::Sum;
  int root = 0;
};

std::vector<Block> blocks_of(Collective c, const PlanDimensions& d, const SpaceContext& ctx) {
  std::vector<std::optional<P2pImpl>> impls{std::nullopt};
  if (has_two_impls(c) && !d.p2p_impls.empty()) impls.assign(d.p2p_impls.begin(), d.p2p_impls.end());
  const std::vector<ReduceOp> ops = is_reduction(c) || d.ops.empty() ? d.ops : std::vector<ReduceOp>{d.ops.front()};
  std::vector<int> roots{is_rooted(c) ? d.root : 0};
  if (is_rooted(c) && d.all_roots) {
    roots.clear();
    for (int r = 0; r < std::max(1, ctx.nranks); ++r) roots.push_back(r);
  }
  std::vector<Block> out;
  for (const auto& impl : impls)
    for (DType dtype : d.dtypes)
      for (ReduceOp op : ops)
        for (int root : roots) out.push_back({impl, dtype, op, root});
  return out;
}

}  // namespace

PlanDimensions dimensions_of(const SearchSpace& space) {
  PlanDimensions d;
  d.collectives = space.collectives;
  d.sizes = space.sizes.expand();
  d.dtypes = space.dtypes;
  d.configs = in_process_configs(space);
  d.measure = space.measure;
  return d;
}

namespace {

// The sizes of each (collective, data type), worked out once: every group and config shares them.
using SizeTable = std::map<std::pair<Collective, DType>, std::vector<std::uint64_t>>;

SizeTable size_table(const PlanDimensions& d, const SpaceContext& ctx) {
  SizeTable table;
  for (Collective c : d.collectives)
    for (DType dtype : d.dtypes) table[{c, dtype}] = d.shapes.empty() ? sizes_for(d, c, dtype, ctx) : std::vector<std::uint64_t>{};
  for (const JobPoint& s : d.shapes) table[{s.collective, s.dtype}].push_back(s.size_bytes);
  return table;
}

// The points a group would measure, counted without making any (issue 24, F6: a 446-byte
// space once planned 10^9 points and ran out of memory doing so).
double count_points(const PlanDimensions& d, const SpaceContext& ctx, const SizeTable& sizes, int channel_ceiling, bool no_nvls) {
  double points = 0;
  for (Collective c : d.collectives) {
    const std::vector<Block> blocks = blocks_of(c, d, ctx);
    for (const PointConfig& config : d.configs) {
      if (!unsupported_reason(c, config, ctx, channel_ceiling, no_nvls).empty()) continue;
      for (const Block& b : blocks) points += static_cast<double>(sizes.at({c, b.dtype}).size() * d.placements.size());
    }
  }
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

void fill_group(const PlanDimensions& d, const SpaceContext& ctx, const SizeTable& sizes, const EstimateModel& model, PlannedGroup& g,
                SpacePlan& plan) {
  const bool no_nvls = group_disables_nvls(g);
  double seconds = 0;
  for (Collective c : d.collectives) {
    const std::vector<Block> blocks = blocks_of(c, d, ctx);
    for (const PointConfig& config : d.configs) {
      const std::string why = unsupported_reason(c, config, ctx, g.channel_ceiling, no_nvls);
      std::size_t skipped_points = 0;
      for (const Block& b : blocks) {
        const std::vector<std::uint64_t>& list = sizes.at({c, b.dtype});
        if (!why.empty()) {
          skipped_points += list.size() * d.placements.size();
          continue;
        }
        for (std::uint64_t s : list)
          for (bool in_place : d.placements) {
            g.points.push_back({c, s, config, b.dtype, b.op, b.impl, b.root, in_place});
            seconds += point_seconds(d.measure, s, model);
          }
      }
      if (why.empty()) continue;
      g.skipped.push_back({c, config, why, skipped_points});
      plan.skipped_points += skipped_points;
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
  const SizeTable sizes = size_table(d, ctx);
  // Every group is counted before any is filled: a refusal costs no memory.
  double total = 0;
  for (const GroupSpec& spec : space.groups) {
    plan.groups.push_back(resolve(spec, ctx));
    const PlannedGroup& g = plan.groups.back();
    if (g.skip_reason.empty()) total += count_points(d, ctx, sizes, g.channel_ceiling, group_disables_nvls(g));
  }
  if (total > static_cast<double>(max_plan_points)) refuse_large(space, total);
  for (PlannedGroup& g : plan.groups)
    if (g.skip_reason.empty()) fill_group(d, ctx, sizes, model, g, plan);
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
