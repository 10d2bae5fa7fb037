#include "runtime/worker_loop.hpp"

#include "collectives/engine.hpp"
#include "core/results_json.hpp"
#include "runtime/halving_loop.hpp"

namespace cctune::runtime {
namespace {

namespace search = tuner::search;

SearchUnit unit_of(const SweepPlan& plan, const std::vector<PointSpec>& points, std::size_t b, const PointBlock& block,
                   std::size_t first_p, std::size_t placements) {
  SearchUnit unit;
  unit.block = b;
  unit.points = block;
  const auto& configs = point_configs(plan);
  for (std::size_t k = 0; k < configs.size(); ++k)
    for (std::size_t p = first_p; p < first_p + placements; ++p) {
      // The plan's skips are recorded once, in meta.settings.space, not as points.
      if (planned_skip(plan, points[point_index(plan, block, 0, k, p)])) continue;
      if (configs[k].is_default()) unit.nccl_default = unit.candidates.size();
      unit.candidates.emplace_back(k, p);
    }
  return unit;
}

void run_unit(CollectiveBackend& backend, RankComm& comm, const WorkerSpec& spec, const SweepPlan& plan,
              const std::vector<PointSpec>& points, const SearchUnit& unit, const Emit& emit, const BeforePoint& before_point) {
  const auto strategy = search::make_strategy(plan.nccl.strategy, unit.points.sizes, unit.candidates.size(),
                                              worker_halving_options(unit.nccl_default));
  while (!strategy->finished())
    for (const search::Request& req : strategy->next()) {
      const auto [k, p] = unit.candidates[req.candidate];
      const std::size_t index = point_index(plan, unit.points, req.size_index, k, p);
      emit(progress_message(static_cast<long>(index)));
      if (before_point) before_point(spec, static_cast<long>(index));
      const PointResult r = measure_point(backend, comm, points[index], request_settings(plan.measure, req.iterations));
      strategy->record(req, measurement_of(r));
      if (comm.rank() != 0) continue;
      nlohmann::json j = r;
      // A point NCCL cannot run is reported once, as a plain skipped point.
      if (const int round = screening_round(req.iterations); round >= 0 && r.status == PointStatus::Ok) j["screen_round"] = round;
      emit(point_message(static_cast<long>(index), j));
    }
}

}  // namespace

std::vector<SearchUnit> search_units(const SweepPlan& plan, const std::vector<PointSpec>& points) {
  std::vector<SearchUnit> units;
  const bool per_placement = plan.nccl.strategy != search::StrategyKind::Exhaustive;
  const std::vector<PointBlock> blocks = point_blocks(plan, points);
  for (std::size_t b = 0; b < blocks.size(); ++b)
    if (per_placement)
      for (std::size_t p = 0; p < plan.space.placements.size(); ++p) units.push_back(unit_of(plan, points, b, blocks[b], p, 1));
    else
      units.push_back(unit_of(plan, points, b, blocks[b], 0, plan.space.placements.size()));
  return units;
}

void run_worker_points(CollectiveBackend& backend, RankComm& comm, const WorkerSpec& spec, const SweepPlan& plan,
                       const std::vector<PointSpec>& points, const Emit& emit, const BeforePoint& before_point) {
  for (const SearchUnit& unit : search_units(plan, points))
    if (!unit.candidates.empty()) run_unit(backend, comm, spec, plan, points, unit, emit, before_point);
}

}  // namespace cctune::runtime
