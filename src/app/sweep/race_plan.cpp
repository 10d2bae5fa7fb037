#include "app/sweep/race_plan.hpp"

#include <algorithm>
#include <variant>

namespace cctune::app {

runtime::SweepPlan round_plan(const runtime::SweepPlan& plan, const tuner::search::RaceRound& r) {
  runtime::SweepPlan out = plan;
  out.nccl.groups.clear();
  for (const std::string& name : r.groups)
    for (const runtime::ConfigGroup& g : plan.nccl.groups)
      if (g.label == name) out.nccl.groups.push_back(g);
  if (auto* shapes = std::get_if<PointShapes>(&out.space.points); shapes && !r.shapes.empty())
    std::erase_if(shapes->shapes, [&](const JobPoint& s) { return std::find(r.shapes.begin(), r.shapes.end(), s) == r.shapes.end(); });
  if (!r.variants) {
    out.nccl.configs.resize(1);
    out.nccl.strategy = tuner::search::StrategyKind::Exhaustive;
  }
  out.measure.stop.max_time_s = r.max_time_s;
  return out;
}

std::vector<JobPoint> race_focus_of(const runtime::SweepPlan& plan, const tuner::TuneOutputs& t, const std::vector<std::string>& racing) {
  const auto* shapes = std::get_if<PointShapes>(&plan.space.points);
  if (!shapes) return {};
  std::vector<tuner::search::ShapeWidth> widths;
  for (const JobPoint& shape : shapes->shapes) {
    double width = 0;
    for (const tuner::GroupScore& g : t.groups) {
      if (std::find(racing.begin(), racing.end(), g.group) == racing.end()) continue;
      // The weighted terms are keyed by collective and bytes (the type is the shape's own).
      for (const tuner::GroupTerm& term : g.terms)
        if (term.shape.collective == shape.collective && term.size_bytes == shape.size_bytes)
          width += term.weight * (term.defaults.halfwidth_us + term.group.halfwidth_us);
    }
    widths.push_back({shape, width});
  }
  return tuner::search::race_focus(widths);
}

}  // namespace cctune::app
