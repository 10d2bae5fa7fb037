#include "runtime/worker_loop.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "collectives/engine.hpp"
#include "core/results_json.hpp"
#include "runtime/halving_loop.hpp"

namespace cctune::runtime {
namespace {

namespace search = tuner::search;

SearchUnit unit_of(const SweepPlan& plan, const std::vector<PointSpec>& points, std::size_t c, std::size_t first_p,
                   std::size_t placements) {
  SearchUnit unit;
  unit.collective = c;
  const auto& configs = point_configs(plan);
  for (std::size_t k = 0; k < configs.size(); ++k)
    for (std::size_t p = first_p; p < first_p + placements; ++p) {
      // The plan's skips are recorded once, in meta.settings.space, not as points.
      if (planned_skip(plan, points[point_index(plan, c, 0, k, p)])) continue;
      if (configs[k].is_default()) unit.nccl_default = unit.candidates.size();
      unit.candidates.emplace_back(k, p);
    }
  return unit;
}

void run_unit(CollectiveBackend& backend, RankComm& comm, const WorkerSpec& spec, const SweepPlan& plan,
              const std::vector<PointSpec>& points, const SearchUnit& unit, const Emit& emit) {
  const auto strategy = search::make_strategy(plan.nccl.strategy, plan.sizes.size(), unit.candidates.size(),
                                              worker_halving_options(unit.nccl_default));
  while (!strategy->finished())
    for (const search::Request& req : strategy->next()) {
      const auto [k, p] = unit.candidates[req.candidate];
      const std::size_t index = point_index(plan, unit.collective, req.size_index, k, p);
      emit(progress_message(static_cast<long>(index)));
      maybe_commit_fault(spec, static_cast<long>(index));
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
  // One unit per series (collective, dtype, op, root): each has the same number of points.
  const std::size_t series = points_per_series(plan) ? points.size() / points_per_series(plan) : 0;
  for (std::size_t c = 0; c < series; ++c)
    if (per_placement)
      for (std::size_t p = 0; p < plan.placements.size(); ++p) units.push_back(unit_of(plan, points, c, p, 1));
    else
      units.push_back(unit_of(plan, points, c, 0, plan.placements.size()));
  return units;
}

void maybe_commit_fault(const WorkerSpec& spec, long point) {
  if (!spec.test_fault || spec.test_fault->rank != spec.rank || spec.test_fault->point != point) return;
  const std::string& kind = spec.test_fault->kind;
  std::fprintf(stderr, "cctune worker: test fault '%s' at point %ld (CCTUNE_TEST_FAULT)\n", kind.c_str(), point);
  std::fflush(stderr);
  if (kind == "abort") std::abort();
  if (kind == "exit") ::_exit(7);
  for (;;) ::pause();  // hang: silent until killed
}

void run_worker_points(CollectiveBackend& backend, RankComm& comm, const WorkerSpec& spec, const SweepPlan& plan,
                       const std::vector<PointSpec>& points, const Emit& emit) {
  for (const SearchUnit& unit : search_units(plan, points))
    if (!unit.candidates.empty()) run_unit(backend, comm, spec, plan, points, unit, emit);
}

}  // namespace cctune::runtime
