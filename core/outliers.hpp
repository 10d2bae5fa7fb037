#pragma once
// The robust outlier rule `cctune diagnose` judges every component with (docs/DIAGNOSE.md),
// and the profiler half's production watch judges live busbw with (docs/WORKLOAD.md).
// A figure is slow when it is worse than its group's median by more than BOTH
//  - z_max robust standard deviations (1.4826 x the median absolute deviation: the modified
//    z-score of Iglewicz and Hoaglin, which one or two bad members cannot drag along), and
//  - min_shortfall of the median, so that a tight, healthy cluster (MAD near 0) never names
//    a suspect for a few percent of noise.
// Groups of fewer than kMinGroup figures are not judged: with two, the median is their mean
// and either could be the bad one.
#include <cstddef>
#include <span>

namespace cctune {

enum class Better { Higher, Lower };  // bandwidths: higher is better; times: lower

struct OutlierRule {
  double z_max = 3.5;
  double min_shortfall = 0.15;
};

inline constexpr std::size_t kMinGroup = 3;

struct Typical {
  double median = 0;
  double mad = 0;  // median absolute deviation from the median
  std::size_t count = 0;
};

Typical typical_of(std::span<const double> values);

// How much worse `value` is than `reference`, as a fraction of `reference`; 0 when not worse
// (or when the reference is not positive).
double shortfall(double value, double reference, Better better);

bool is_slow(double value, const Typical& group, Better better, const OutlierRule& rule);

// The better of two readings of one figure (a reading of 0 or less: not measured): a passing
// disturbance (a loaded host) slows one reading, a shaped path or a bad part both.
double better_reading(double first, double again, Better better);

}  // namespace cctune
