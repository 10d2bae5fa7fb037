#include "core/stopping.hpp"

#include <algorithm>

#include "core/statistics.hpp"

namespace cctune {

double NoiseCriterion::relative_noise() const { return median_relative_noise(samples_); }

const char* NoiseCriterion::reason(double elapsed_s) const {
  const long n = static_cast<long>(samples_.size());
  if (n >= rule_.max_iterations) return "iterations";
  // Slow points (GiB messages over a slow link) stop on time after a few samples.
  if (n >= std::min(rule_.min_iterations, 3L) && elapsed_s >= rule_.max_time_s) return "time";
  if (n >= rule_.min_iterations && relative_noise() <= rule_.target_rel_noise) return "noise";
  return "";
}

bool NoiseCriterion::is_finished(double elapsed_s) const { return *reason(elapsed_s) != '\0'; }

}  // namespace cctune
