#pragma once
// `cctune verify`'s statistics: NCCL's default (A) against a profile (B), measured in R
// interleaved rounds (A, B, A, B, ...). Pure functions, no I/O; docs/TUNING.md "Verify".
//
// Why paired rounds and order statistics: each round measures A and then B back to back,
// so slow drifts (clocks, thermal, other jobs) hit both alike and cancel in the round's
// ratio A_i / B_i. Per-round values are themselves medians of many iterations, so there
// are few of them (R ~ 6): a bootstrap over 6 values is unreliable, while the
// distribution-free interval for the median of the ratios (sign-test order statistics)
// is exact for any continuous distribution and needs no seed.
#include <cstdint>
#include <string>
#include <vector>

#include "core/collective.hpp"

namespace cctune::app {

// Undecided: the pairs were too few for an interval at the target confidence (or none measured
// both sides), so no verdict is claimed either way: a 4-pair min..max interval covers the median
// with 87.5 %, and on a job whose step moved 26-45 ms between runs such a verdict said "slower"
// where 6 pairs said "same" (issue 43).
enum class Verdict { Faster, Same, Slower, Undecided };
std::string to_string(Verdict v);

struct AbSamples {
  Collective collective = Collective::AllReduce;
  std::uint64_t size_bytes = 0;
  std::vector<double> a_us;  // default, one value per round
  std::vector<double> b_us;  // profile, same rounds, same order (pairs a_us[i], b_us[i])
};

struct AbOptions {
  double tolerance = 0.02;   // a size regresses when the whole CI is below 1 / (1 + tolerance)
  double confidence = 0.95;  // two-sided target; the achieved level is reported
};

struct AbRow {
  Collective collective = Collective::AllReduce;
  std::uint64_t size_bytes = 0;
  int rounds = 0;  // pairs used
  double a_median_us = 0;
  double b_median_us = 0;
  double speedup = 1;  // median over rounds of A_i / B_i (> 1: the profile is faster)
  double ci_low = 1, ci_high = 1;
  double ci_confidence = 0;  // achieved coverage of [ci_low, ci_high]; < target with few rounds
  Verdict verdict = Verdict::Same;
  int more_pairs = 0;  // Undecided: pairs still needed for an interval at the target confidence
  std::string note;    // why the verdict is weak or undecided, empty otherwise
};

struct AbReport {
  std::vector<AbRow> rows;
  double geomean_speedup = 1;  // over all rows
  int faster = 0, same = 0, slower = 0, undecided = 0;
  bool regressed() const { return slower > 0; }
};

// Distribution-free CI for the median of `values` (sorted copy inside): [x_(k), x_(n+1-k)]
// with the largest k whose coverage 1 - 2 P(Bin(n, 1/2) < k) is at least `confidence`;
// with too few values, k = 1 (min..max) and the lower coverage is returned.
struct MedianInterval {
  double low = 0, high = 0, confidence = 0;
};
MedianInterval median_interval(std::vector<double> values, double confidence);

// The fewest pairs whose min..max interval of the median reaches `confidence` (6 for 95 %).
int pairs_for_confidence(double confidence);

// Whether `row` settles the question at `tolerance`: faster or slower beyond it, or the same
// with the whole interval inside [1/(1+tolerance), 1+tolerance]. A "same" whose interval still
// reaches past the tolerance says only that the pairs could not tell: more pairs may decide it.
bool decided(const AbRow& row, double tolerance);

// The confidence each of `looks` looks at a growing set of pairs must reach so that the chance
// that any of them decides wrongly stays under 1 - `target` (Bonferroni): a sequential test
// (verify --job --until-decided) that looks again after more pairs keeps its error rate.
double per_look_confidence(double target, int looks);

// Pairs with a non-positive or missing side are dropped. Throws UsageError for a negative
// tolerance or a confidence outside (0, 1).
AbRow analyze_pair(const AbSamples& s, const AbOptions& options);
AbReport analyze(const std::vector<AbSamples>& samples, const AbOptions& options);

}  // namespace cctune::app
