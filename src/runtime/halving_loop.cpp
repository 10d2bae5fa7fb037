#include "runtime/halving_loop.hpp"

#include <cmath>

namespace cctune::runtime {

namespace search = tuner::search;

search::Measurement measurement_of(const PointResult& r) {
  if (r.status != PointStatus::Ok || !(r.iter_us.median > 0)) return {};
  const double half = std::isfinite(r.rel_noise) && r.rel_noise > 0 ? r.rel_noise * r.iter_us.median : r.iter_us.median;
  return {r.iter_us.median, half};
}

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

search::HalvingOptions worker_halving_options(std::optional<std::size_t> always_keep) {
  search::HalvingOptions options;
  options.full_iterations = kFullMeasurement;
  options.always_keep = always_keep;
  return options;
}

MeasureSettings request_settings(const MeasureSettings& full, int iterations) {
  return iterations >= kFullMeasurement ? full : screening_settings(full, iterations);
}

int screening_round(int iterations) {
  const search::HalvingOptions options;
  if (iterations == options.first_iterations) return 0;
  if (iterations == options.middle_iterations) return 1;
  return -1;
}

}  // namespace cctune::runtime
