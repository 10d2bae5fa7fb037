#include "core/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace cctune {
namespace {
std::vector<double> sorted(std::span<const double> v) {
  std::vector<double> s(v.begin(), v.end());
  std::sort(s.begin(), s.end());
  return s;
}
double quantile_sorted(const std::vector<double>& s, double q) {
  if (s.empty()) return 0;
  const double pos = q * static_cast<double>(s.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = std::min(lo + 1, s.size() - 1);
  return s[lo] + (s[hi] - s[lo]) * (pos - static_cast<double>(lo));
}
}  // namespace

double mean(std::span<const double> v) {
  if (v.empty()) return 0;
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

double median(std::span<const double> v) { return quantile(v, 0.5); }

double quantile(std::span<const double> v, double q) { return quantile_sorted(sorted(v), q); }

double stddev(std::span<const double> v) {
  if (v.size() < 2) return 0;
  const double m = mean(v);
  double acc = 0;
  for (double x : v) acc += (x - m) * (x - m);
  return std::sqrt(acc / static_cast<double>(v.size() - 1));
}

Summary summarize(std::span<const double> v) {
  Summary s;
  s.count = static_cast<long>(v.size());
  if (v.empty()) return s;
  const auto sv = sorted(v);
  s.min = sv.front();
  s.max = sv.back();
  s.median = quantile_sorted(sv, 0.5);
  s.p99 = quantile_sorted(sv, 0.99);
  s.mean = mean(v);
  s.stddev = stddev(v);
  s.cv = s.mean > 0 ? s.stddev / s.mean : 0;
  return s;
}

double median_relative_noise(std::span<const double> v) {
  const std::size_t n = v.size();
  if (n < 5) return std::numeric_limits<double>::infinity();
  const auto sv = sorted(v);
  // Ranks n/2 -/+ 1.96 sqrt(n)/2 bound the median with ~95% confidence for any distribution.
  const double half = 0.98 * std::sqrt(static_cast<double>(n));
  const double mid = (static_cast<double>(n) - 1) / 2;
  const auto lo = static_cast<std::size_t>(std::max(0.0, std::floor(mid - half)));
  const auto hi = static_cast<std::size_t>(std::min(static_cast<double>(n - 1), std::ceil(mid + half)));
  const double med = quantile_sorted(sv, 0.5);
  if (med <= 0) return std::numeric_limits<double>::infinity();
  return (sv[hi] - sv[lo]) / 2 / med;
}

}  // namespace cctune
