#include "core/stopping.hpp"

#include <algorithm>

#include "core/enum_names.hpp"
#include "core/statistics.hpp"

namespace cctune {

double NoiseCriterion::relative_noise() const { return median_relative_noise(samples_); }

namespace {
constexpr NameTable<StopReason, 4> stop_reason_names{{
    {StopReason::Noise, "noise"}, {StopReason::Time, "time"}, {StopReason::Iterations, "iterations"}, {StopReason::Interrupted, "interrupted"}}};
}  // namespace

std::string to_string(StopReason r) { return name_of(stop_reason_names, r); }
StopReason parse_stop_reason(std::string_view s) { return parse_named(stop_reason_names, s, "stop reason"); }

std::optional<StopReason> NoiseCriterion::reason(double elapsed_s) const {
  const long n = static_cast<long>(samples_.size());
  if (n >= rule_.max_iterations) return StopReason::Iterations;
  // Slow points (GiB messages over a slow link) stop on time after a few samples.
  if (n >= std::min(rule_.min_iterations, 3L) && elapsed_s >= rule_.max_time_s) return StopReason::Time;
  if (n >= rule_.min_iterations && relative_noise() <= rule_.target_rel_noise) return StopReason::Noise;
  return std::nullopt;
}

bool NoiseCriterion::is_finished(double elapsed_s) const { return reason(elapsed_s).has_value(); }

}  // namespace cctune
