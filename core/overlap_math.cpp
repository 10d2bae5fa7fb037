#include "core/overlap_math.hpp"

#include <algorithm>
#include <cmath>

#include "core/statistics.hpp"

namespace cctune {

double window_slowdown(double start_us, const std::vector<double>& ends_us, double window_us, double solo_us) {
  if (!(solo_us > 0) || !(window_us > 0) || ends_us.empty()) return 0;
  double lost = 0, covered_from = -1, covered_to = -1;
  double begin = start_us;
  for (const double end : ends_us) {
    if (end > 0 && begin < window_us) {  // overlaps the window
      lost += (end - begin) - solo_us;
      if (covered_from < 0) covered_from = std::max(begin, 0.0);
      covered_to = std::min(end, window_us);
    }
    begin = end;
  }
  const double covered = covered_to - covered_from;
  if (covered_from < 0 || !(covered > 0)) return 0;
  // The compute cannot lose more than the time it ran: a slowdown beyond 100x reads as 100x.
  lost = std::min(lost, 0.99 * covered);
  return covered / (covered - lost);
}

double compute_us_of(double collective_us, double slowdown) {
  if (!(slowdown > 0)) return 0;
  return collective_us * (1 - 1 / slowdown);
}

double compute_halfwidth_us(double collective_us, const std::vector<double>& slowdowns) {
  if (slowdowns.empty()) return 0;
  const double centre = compute_us_of(collective_us, median(slowdowns));
  if (slowdowns.size() < 2) return std::fabs(centre);
  const auto [low, high] = std::minmax_element(slowdowns.begin(), slowdowns.end());
  return std::max(centre - compute_us_of(collective_us, *low), compute_us_of(collective_us, *high) - centre);
}

}  // namespace cctune
