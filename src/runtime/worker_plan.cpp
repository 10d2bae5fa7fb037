#include "runtime/worker_plan.hpp"

#include <algorithm>

#include "collectives/step_buffers.hpp"
#include "core/point_space.hpp"
#include "core/sizes.hpp"
#include "core/units.hpp"

namespace cctune::runtime {

const std::vector<PointConfig>& point_configs(const SweepPlan& plan) {
  static const std::vector<PointConfig> nccl_default{PointConfig{}};
  return plan.nccl.configs.empty() ? nccl_default : plan.nccl.configs;
}

namespace {

// The bytes of a call that passes `count` elements per rank, as nccl-tests names its size.
CollectiveBytes bytes_of_count(Collective c, DType t, std::uint64_t count, int nranks) {
  const std::uint64_t per_rank = count * dtype_size(t);
  return collective_bytes(c, splits_over_ranks(c) ? per_rank * static_cast<std::uint64_t>(nranks) : per_rank, t, nranks);
}

// A replayed step: one point whose operation is the whole step; its own fields are the
// largest call's, so that tables and results name something real.
PointSpec replay_point(const SweepPlan& plan, const PointStep& replayed, int nranks) {
  PointSpec step;
  for (const ReplayCall& c : replayed.calls) {
    StepCall call{c.collective, c.dtype, c.op, c.root, bytes_of_count(c.collective, c.dtype, c.count, nranks), c.repeats, c.group};
    if (step.sequence.empty() || call.bytes.size_bytes > step.bytes.size_bytes) {
      step.collective = call.collective, step.dtype = call.dtype, step.op = call.op, step.root = call.root;
      step.bytes = call.bytes;
    }
    step.sequence.push_back(call);
  }
  step.config = point_configs(plan).front();
  return step;
}

}  // namespace

namespace {

// The points of one series (a table section) at its sizes, already raised to the collective's
// granule by the point space.
void add_series(std::vector<PointSpec>& out, const SweepPlan& plan, int nranks, PointSpec s,
                const std::vector<std::uint64_t>& sizes) {
  for (auto size : sizes)
    for (const auto& config : point_configs(plan))
      for (bool in_place : plan.space.placements) {
        s.in_place = in_place;
        s.bytes = collective_bytes(s.collective, size, s.dtype, nranks);
        s.config = config;
        out.push_back(s);
      }
}

}  // namespace

std::vector<PointSpec> enumerate_points(const SweepPlan& plan, int nranks) {
  if (const auto* step = std::get_if<PointStep>(&plan.space.points)) return {replay_point(plan, *step, nranks)};
  std::vector<PointSpec> out;
  PointSpec s;
  s.impl_fallback = p2p_impl_of(plan.space) == P2pImplChoice::Native;
  for_each_series(plan.space, std::max(nranks, 1), [&](const PointSeries& series, const std::vector<std::uint64_t>& sizes) {
    s.collective = series.collective, s.impl = series.impl, s.dtype = series.dtype, s.op = series.op, s.root = series.root;
    add_series(out, plan, nranks, s, sizes);
    ++s.series;
  });
  return out;
}

std::vector<PointBlock> point_blocks(const SweepPlan& plan, const std::vector<PointSpec>& points) {
  const std::size_t per_size = point_configs(plan).size() * plan.space.placements.size();
  std::vector<PointBlock> blocks;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (i == 0 || points[i].series != points[i - 1].series) blocks.push_back({i, 0});
    ++blocks.back().sizes;  // counts points here; sizes below
  }
  for (PointBlock& b : blocks) b.sizes = per_size == 0 ? 0 : b.sizes / per_size;
  return blocks;
}

std::size_t point_index(const SweepPlan& plan, const PointBlock& block, std::size_t s, std::size_t k, std::size_t p) {
  return block.start + (s * point_configs(plan).size() + k) * plan.space.placements.size() + p;
}

const SkipRule* planned_skip(const SweepPlan& plan, const PointSpec& spec) {
  for (const SkipRule& r : plan.skips)
    if (r.collective == spec.collective && r.config == spec.config) return &r;
  return nullptr;
}

std::string describe(const PointSpec& s) {
  std::string d = to_string(s.collective) + (s.impl ? " " + std::string(to_string_view(*s.impl)) : "") + (is_rooted(s.collective) ? " root " + std::to_string(s.root) : "") + " " + format_size(s.bytes.size_bytes) + (s.in_place ? " in-place" : " out-of-place");
  if (!s.config.is_default())
    d += " " + algo_proto_name(s.config.algo, s.config.proto) + "/" + (s.config.channels ? std::to_string(s.config.channels) + "ch" : "auto-ch");
  return d;
}

BufferBytes largest_buffers(const std::vector<PointSpec>& points) {
  BufferBytes need;
  for (const auto& p : points) {
    const StepBuffers step = step_buffers(p.sequence);  // a group's members side by side
    need.send = std::max(need.send, step.send_bytes);
    need.recv = std::max(need.recv, step.recv_bytes);
    need.send = std::max(need.send, p.bytes.send_count * dtype_size(p.dtype));
    need.recv = std::max(need.recv, p.bytes.recv_count * dtype_size(p.dtype));
  }
  return need;
}

}  // namespace cctune::runtime
