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
  if (point.overlap) {  // the job's cost of the call: the collective and the compute it took
    t.overlap = true;
    t.compute_us = point.overlap->compute_us;
    t.time_us += t.compute_us;
    t.halfwidth_us += point.overlap->compute_halfwidth_us;  // both may err the same way: summed
  }
  return t;
}

bool significantly_faster(const Timing& candidate, const Timing& reference, double min_gain, double min_gain_us) {
  if (!(candidate.time_us > 0) || !(reference.time_us > 0)) return false;
  // The gain must clear the tolerance with its interval, not only with its point estimate: the
  // candidate's slowest plausible time against the default's fastest plausible one. Two 1 %
  // intervals around a 3 % gain leave 1 %: noise, which verify then reads "same".
  const double slow_candidate = candidate.time_us + candidate.halfwidth_us;
  const double fast_reference = reference.time_us - reference.halfwidth_us;
  return slow_candidate <= fast_reference * (1.0 - min_gain) && fast_reference - slow_candidate >= min_gain_us;
}

}  // namespace cctune::tuner
