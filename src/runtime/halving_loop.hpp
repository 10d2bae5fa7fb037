#pragma once
// What the worker's search loop (worker_loop.hpp) needs to know of successive halving
// (tuner/search): per collective and placement, every candidate config is screened briefly at
// a size, the best few are re-measured, and the finalists plus NCCL's own choice get a full
// measurement. Every worker runs the same strategy on the same cross-rank results, so all
// ranks ask for the same next point without talking about it.
#include "collectives/engine.hpp"
#include "tuner/search/strategy.hpp"

namespace cctune::runtime {

// The iterations a strategy asks for to mean "the full measurement": the plan's own settings
// (noise target, time cap), as an exhaustive sweep measures. No screening round asks for it.
inline constexpr int kFullMeasurement = 1'000'000;

// The halving options of a worker: screening rounds as tuner/search sets them, the last
// round a full measurement, and `always_keep` (NCCL's own choice) measured at full length.
tuner::search::HalvingOptions worker_halving_options(std::optional<std::size_t> always_keep);

// The settings to measure a request of `iterations` with: the plan's `full` ones, or a
// screening round's (screening_settings).
MeasureSettings request_settings(const MeasureSettings& full, int iterations);
// The screening round (0, 1) a request of `iterations` belongs to; -1 for a full measurement.
int screening_round(int iterations);

// The measurement settings of a screening round of `iterations` timed operations: one batch,
// two warm-up operations, no noise target.
MeasureSettings screening_settings(const MeasureSettings& full, int iterations);

// What a strategy ranks by: the median per-operation time, as `cctune tune` does; "could not
// run" for a point that is not ok.
tuner::search::Measurement measurement_of(const PointResult& r);


}  // namespace cctune::runtime
