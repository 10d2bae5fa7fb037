#include "app/ab/ab_analysis.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/error.hpp"
#include "core/statistics.hpp"

namespace cctune::app {

std::string to_string(Verdict v) {
  switch (v) {
    case Verdict::Faster: return "faster";
    case Verdict::Same: return "same";
    case Verdict::Slower: return "slower";
    case Verdict::Undecided: return "undecided";
  }
  return "undecided";
}

namespace {

// P(Bin(n, 1/2) <= j), exactly enough for the n of a verify run (binomial terms in doubles).
double binomial_half_cdf(int n, int j) {
  double term = std::pow(0.5, n), sum = 0;  // C(n, 0) / 2^n
  for (int i = 0; i <= j && i <= n; ++i) {
    sum += term;
    term = term * static_cast<double>(n - i) / static_cast<double>(i + 1);
  }
  return sum;
}

}  // namespace

MedianInterval median_interval(std::vector<double> values, double confidence) {
  MedianInterval r;
  if (values.empty()) return r;
  std::sort(values.begin(), values.end());
  const int n = static_cast<int>(values.size());
  int k = 1;  // 1-based order statistic
  for (int cand = 1; 2 * cand <= n + 1; ++cand)
    if (1.0 - 2.0 * binomial_half_cdf(n, cand - 1) >= confidence) k = cand;
  r.low = values[static_cast<std::size_t>(k - 1)];
  r.high = values[static_cast<std::size_t>(n - k)];
  r.confidence = std::max(0.0, 1.0 - 2.0 * binomial_half_cdf(n, k - 1));
  return r;
}

int pairs_for_confidence(double confidence) {
  int n = 1;
  while (n < 64 && 1.0 - 2.0 * binomial_half_cdf(n, 0) < confidence) ++n;
  return n;
}

bool decided(const AbRow& row, double tolerance) {
  if (row.verdict == Verdict::Faster || row.verdict == Verdict::Slower) return true;
  return row.verdict == Verdict::Same && row.ci_low >= 1.0 / (1.0 + tolerance) && row.ci_high <= 1.0 + tolerance;
}

double per_look_confidence(double target, int looks) { return 1.0 - (1.0 - target) / static_cast<double>(std::max(1, looks)); }

AbRow analyze_pair(const AbSamples& s, const AbOptions& o) {
  if (!(o.tolerance >= 0 && o.tolerance <= 1)) throw UsageError("--tolerance must be a fraction from 0 to 1", "use e.g. --tolerance 0.02");
  if (!(o.confidence > 0 && o.confidence < 1)) throw UsageError("confidence must be in (0, 1)", "use 0.95");
  AbRow row;
  row.collective = s.collective;
  row.size_bytes = s.size_bytes;
  std::vector<double> a, b, ratios;
  for (std::size_t i = 0; i < std::min(s.a_us.size(), s.b_us.size()); ++i) {
    if (!(s.a_us[i] > 0) || !(s.b_us[i] > 0)) continue;
    a.push_back(s.a_us[i]);
    b.push_back(s.b_us[i]);
    ratios.push_back(s.a_us[i] / s.b_us[i]);
  }
  row.rounds = static_cast<int>(ratios.size());
  if (ratios.empty()) {
    row.verdict = Verdict::Undecided;
    row.more_pairs = pairs_for_confidence(o.confidence);
    row.note = "no round measured both";
    return row;
  }
  row.a_median_us = median(a);
  row.b_median_us = median(b);
  row.speedup = median(ratios);
  const MedianInterval ci = median_interval(ratios, o.confidence);
  row.ci_low = ci.low;
  row.ci_high = ci.high;
  row.ci_confidence = ci.confidence;
  if (ci.confidence + 1e-12 < o.confidence) {
    row.verdict = Verdict::Undecided;
    row.more_pairs = pairs_for_confidence(o.confidence) - row.rounds;
    char note[96];
    std::snprintf(note, sizeof note, "%d more pair%s needed for a %.0f %% interval", row.more_pairs, row.more_pairs == 1 ? "" : "s",
                  100 * o.confidence);
    row.note = note;
    return row;
  }
  if (ci.high < 1.0 / (1.0 + o.tolerance))
    row.verdict = Verdict::Slower;
  else if (ci.low > 1.0 + o.tolerance)
    row.verdict = Verdict::Faster;
  return row;
}

AbReport analyze(const std::vector<AbSamples>& samples, const AbOptions& o) {
  AbReport r;
  double log_sum = 0;
  int n = 0;
  for (const auto& s : samples) {
    AbRow row = analyze_pair(s, o);
    if (row.rounds > 0) {
      log_sum += std::log(row.speedup);
      ++n;
    }
    switch (row.verdict) {
      case Verdict::Faster: ++r.faster; break;
      case Verdict::Same: ++r.same; break;
      case Verdict::Slower: ++r.slower; break;
      case Verdict::Undecided: ++r.undecided; break;
    }
    r.rows.push_back(std::move(row));
  }
  r.geomean_speedup = n > 0 ? std::exp(log_sum / n) : 1.0;
  return r;
}

}  // namespace cctune::app
