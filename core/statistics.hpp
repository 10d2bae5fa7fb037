#pragma once
// Summary statistics as plain functions over samples (microseconds, usually).
#include <span>
#include <vector>

namespace cctune {

double mean(std::span<const double> v);
double median(std::span<const double> v);
// Linear interpolation between closest ranks (numpy's default); q in [0, 1].
double quantile(std::span<const double> v, double q);
// Sample standard deviation (n - 1); 0 for fewer than two samples.
double stddev(std::span<const double> v);

struct Summary {
  double median = 0, mean = 0, min = 0, max = 0, p99 = 0, stddev = 0;
  double cv = 0;  // stddev / mean
  long count = 0;
};

Summary summarize(std::span<const double> v);

// Relative noise of the median: half-width of a ~95% distribution-free confidence
// interval on the median (order statistics), divided by the median. Infinity when
// there are too few samples to say.
double median_relative_noise(std::span<const double> v);

}  // namespace cctune
