#include "runtime/halving_loop.hpp"

#include <cmath>

#include "collectives/engine.hpp"
#include "core/results_json.hpp"
#include "tuner/search/strategy.hpp"

namespace cctune::runtime {
namespace {

namespace search = tuner::search;

// Large enough that no screening round asks for it: it marks the full measurement, which
// uses the plan's own settings (noise target, time cap) exactly as the exhaustive sweep.
constexpr int kFullMeasurement = 1'000'000;


// What the strategy ranks by: the median per-operation time, as `cctune tune` does.
search::Measurement measurement_of(const PointResult& r) {
  if (r.status != PointStatus::Ok || !(r.iter_us.median > 0)) return {};
  const double half = std::isfinite(r.rel_noise) && r.rel_noise > 0 ? r.rel_noise * r.iter_us.median : r.iter_us.median;
  return {r.iter_us.median, half};
}

}  // namespace

MeasureSettings screening_settings(const MeasureSettings& full, int iterations) {
  MeasureSettings s = full;
  s.check = false;
  // Two warm-up operations after a config switch (the communicator itself is warm). One was
  // tried on 2xH200: no faster overall (15.0 s either way) and more near-tie misses.
  s.warmup_iters = std::min(full.warmup_iters, 2);
  s.batch_iters = iterations;
  s.min_batches = 1;
  s.stop.min_iterations = iterations;
  s.stop.max_iterations = iterations;
  return s;
}

void run_halving_points(CollectiveBackend& backend, RankComm& comm, const WorkerSpec& spec, const WorkerPlan& plan,
                        const std::vector<PointSpec>& points, const Emit& emit) {
  search::HalvingOptions options;
  options.full_iterations = kFullMeasurement;
  const int screening_rounds[] = {options.first_iterations, options.middle_iterations};

  auto send = [&](std::size_t index, const PointResult& r, int round) {
    if (comm.rank() != 0) return;
    nlohmann::json j = r;
    if (round >= 0) j["screen_round"] = round;
    emit(point_message(static_cast<long>(index), j));
  };

  for (std::size_t c = 0; c < plan.collectives.size(); ++c)
    for (std::size_t p = 0; p < plan.placements.size(); ++p) {
      // Candidates: the configs the plan lets this collective run.
      std::vector<std::size_t> candidates;
      for (std::size_t k = 0; k < plan.configs.size(); ++k) {
        if (planned_skip(plan, points[point_index(plan, c, 0, k, p)])) continue;
        if (plan.configs[k].is_default()) options.always_keep = candidates.size();
        candidates.push_back(k);
      }
      if (candidates.empty()) continue;
      search::SuccessiveHalving strategy(plan.sizes.size(), candidates.size(), options);
      options.always_keep.reset();
      while (!strategy.finished())
        for (const search::Request& req : strategy.next()) {
          const std::size_t index = point_index(plan, c, req.size_index, candidates[req.candidate], p);
          emit(progress_message(static_cast<long>(index)));
          maybe_commit_fault(spec, static_cast<long>(index));
          const bool full = req.iterations >= kFullMeasurement;
          const PointResult r = measure_point(backend, comm, points[index], full ? plan.measure : screening_settings(plan.measure, req.iterations));
          strategy.record(req, measurement_of(r));
          int round = -1;
          for (int i = 0; i < 2 && !full; ++i)
            if (req.iterations == screening_rounds[i]) round = i;
          // A point NCCL cannot run is reported once, as a plain skipped point.
          send(index, r, r.status == PointStatus::Ok ? round : -1);
        }
    }
}

}  // namespace cctune::runtime
