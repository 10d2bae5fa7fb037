#include "core/outliers.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/statistics.hpp"

namespace cctune {
namespace {

// 1.4826 x MAD estimates the standard deviation of normally distributed figures.
constexpr double kMadToSigma = 1.4826;

}  // namespace

Typical typical_of(std::span<const double> values) {
  Typical t;
  t.count = values.size();
  if (values.empty()) return t;
  t.median = median(values);
  std::vector<double> deviations;
  deviations.reserve(values.size());
  for (double v : values) deviations.push_back(std::fabs(v - t.median));
  t.mad = median(deviations);
  return t;
}

double shortfall(double value, double reference, Better better) {
  if (!(reference > 0)) return 0;
  const double worse = better == Better::Higher ? reference - value : value - reference;
  return worse > 0 ? worse / reference : 0;
}

bool is_slow(double value, const Typical& group, Better better, const OutlierRule& rule) {
  if (group.count < kMinGroup) return false;
  const double short_by = shortfall(value, group.median, better);
  if (short_by <= rule.min_shortfall) return false;
  const double sigma = kMadToSigma * group.mad;
  return short_by * group.median > rule.z_max * sigma;
}

double better_reading(double first, double again, Better better) {
  if (!(again > 0)) return first;
  if (!(first > 0)) return again;
  return better == Better::Higher ? std::max(first, again) : std::min(first, again);
}

}  // namespace cctune
