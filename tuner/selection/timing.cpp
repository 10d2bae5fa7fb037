#include "tuner/selection/timing.hpp"

#include <cmath>

namespace cctune::tuner {

Timing timing_of(const PointResult& point) {
  Timing t;
  const bool has_samples = point.iter_us.count > 0 && point.iter_us.median > 0;
  t.time_us = has_samples ? point.iter_us.median : point.batch_us;
  if (std::isfinite(point.rel_noise) && point.rel_noise > 0)
    t.halfwidth_us = point.rel_noise * t.time_us;
  else if (has_samples && point.iter_us.count >= 2)
    t.halfwidth_us = 1.96 * point.iter_us.stddev / std::sqrt(static_cast<double>(point.iter_us.count));
  else
    t.halfwidth_us = t.time_us;
  return t;
}

bool significantly_faster(const Timing& candidate, const Timing& reference, double min_gain, double min_gain_us) {
  if (!(candidate.time_us > 0) || !(reference.time_us > 0)) return false;
  const bool beyond_noise = candidate.time_us + candidate.halfwidth_us < reference.time_us - reference.halfwidth_us;
  const bool large_enough = candidate.time_us <= reference.time_us * (1.0 - min_gain) &&
                            reference.time_us - candidate.time_us >= min_gain_us;
  return beyond_noise && large_enough;
}

}  // namespace cctune::tuner
