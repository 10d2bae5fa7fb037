#include "app/ab/ab_analysis.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/error.hpp"

namespace cctune::app {
namespace {

// Per-round medians with multiplicative lognormal noise, fixed seed: reproducible.
AbSamples synthetic(double a_true, double b_true, double rel_noise, int rounds, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0.0, rel_noise);
  AbSamples s;
  s.size_bytes = 1 << 20;
  for (int i = 0; i < rounds; ++i) {
    const double drift = 1.0 + 0.05 * i;  // slow drift that hits A and B of a round alike
    s.a_us.push_back(a_true * drift * std::exp(noise(rng)));
    s.b_us.push_back(b_true * drift * std::exp(noise(rng)));
  }
  return s;
}

TEST(MedianInterval, OrderStatisticsAndCoverage) {
  // n = 6: k = 1 gives 1 - 2/64 = 0.96875; k = 2 gives 1 - 2*7/64 = 0.78 < 0.95.
  const auto ci = median_interval({5, 1, 4, 2, 6, 3}, 0.95);
  EXPECT_DOUBLE_EQ(ci.low, 1);
  EXPECT_DOUBLE_EQ(ci.high, 6);
  EXPECT_NEAR(ci.confidence, 1.0 - 2.0 / 64, 1e-12);
  // n = 20: k = 6 (P(Bin(20,.5) <= 5) = 0.0207) -> coverage 0.9586; k = 7 would be 0.885.
  std::vector<double> v;
  for (int i = 1; i <= 20; ++i) v.push_back(i);
  const auto c20 = median_interval(v, 0.95);
  EXPECT_DOUBLE_EQ(c20.low, 6);
  EXPECT_DOUBLE_EQ(c20.high, 15);
  EXPECT_NEAR(c20.confidence, 0.958611, 1e-6);
  // Too few values: min..max with the lower coverage reported.
  const auto c3 = median_interval({2, 1, 3}, 0.95);
  EXPECT_DOUBLE_EQ(c3.low, 1);
  EXPECT_DOUBLE_EQ(c3.high, 3);
  EXPECT_NEAR(c3.confidence, 0.75, 1e-12);
}

TEST(AbAnalysis, ClearWinIsFaster) {
  const AbRow r = analyze_pair(synthetic(100, 80, 0.01, 6, 1), {});
  EXPECT_EQ(r.verdict, Verdict::Faster);
  EXPECT_NEAR(r.speedup, 1.25, 0.05);
  EXPECT_GT(r.ci_low, 1.02);
  EXPECT_EQ(r.rounds, 6);
  EXPECT_TRUE(r.note.empty());
}

TEST(AbAnalysis, ClearRegressionIsSlower) {
  AbReport rep = analyze({synthetic(100, 110, 0.01, 6, 2), synthetic(100, 100, 0.01, 6, 3)}, {});
  ASSERT_EQ(rep.rows.size(), 2u);
  EXPECT_EQ(rep.rows[0].verdict, Verdict::Slower);
  EXPECT_LT(rep.rows[0].ci_high, 1 / 1.02);
  EXPECT_TRUE(rep.regressed());
  EXPECT_EQ(rep.slower, 1);
}

TEST(AbAnalysis, PureNoiseIsSame) {
  // Many seeds: identical A and B with 3 % noise must (nearly) never be called slower or
  // faster; with 6 rounds min..max covers 1 with probability 31/32 even before the tolerance.
  int wrong = 0;
  for (unsigned seed = 0; seed < 200; ++seed)
    if (analyze_pair(synthetic(50, 50, 0.03, 6, seed), {}).verdict != Verdict::Same) ++wrong;
  EXPECT_LE(wrong, 4);
  const AbRow r = analyze_pair(synthetic(50, 50, 0.03, 6, 7), {});
  EXPECT_LE(r.ci_low, 1.0);
  EXPECT_GE(r.ci_high, 1.0);
}

TEST(AbAnalysis, SmallDifferenceWithinToleranceIsSame) {
  // 1 % slower, no noise at all: the whole CI is below 1 but above 1 / 1.02.
  AbSamples s;
  s.a_us = {100, 100, 100, 100, 100, 100};
  s.b_us = {101, 101, 101, 101, 101, 101};
  EXPECT_EQ(analyze_pair(s, {}).verdict, Verdict::Same);
  EXPECT_EQ(analyze_pair(s, {.tolerance = 0.0}).verdict, Verdict::Slower);
}

TEST(AbAnalysis, GeomeanAndDroppedPairs) {
  AbSamples win, loss;
  win.a_us = {200, 200};
  win.b_us = {100, 100};
  loss.a_us = {100, 100, 0};  // the third round has no A value: dropped
  loss.b_us = {200, 200, 50};
  const AbReport rep = analyze({win, loss}, {});
  EXPECT_NEAR(rep.geomean_speedup, 1.0, 1e-12);
  EXPECT_EQ(rep.rows[1].rounds, 2);
  EXPECT_EQ(rep.rows[1].verdict, Verdict::Undecided);  // 2 rounds: coverage 0.5 < 0.95
  EXPECT_FALSE(rep.rows[1].note.empty());
  AbSamples none;
  EXPECT_EQ(analyze_pair(none, {}).verdict, Verdict::Undecided);  // nothing measured is no "same"
  EXPECT_THROW(analyze_pair(win, {.tolerance = -1}), UsageError);
  EXPECT_THROW(analyze_pair(win, {.tolerance = std::nan("")}), UsageError);
  EXPECT_THROW(analyze_pair(win, {.tolerance = INFINITY}), UsageError);
}

// Below the target confidence there is no verdict either way (issue 43): on a job whose step
// moved 26-45 ms between runs, 4 pairs (an 88 % interval) read "slower" where 6 read "same".
TEST(AbAnalysis, TooFewPairsAreUndecidedWhateverTheirInterval) {
  AbSamples slower;
  slower.a_us = {100, 100, 100, 100};
  slower.b_us = {120, 121, 119, 122};  // every pair 17 % slower
  const AbRow r = analyze_pair(slower, {});
  EXPECT_EQ(r.verdict, Verdict::Undecided);
  EXPECT_EQ(r.more_pairs, 2);
  EXPECT_NE(r.note.find("2 more pairs needed for a 95 % interval"), std::string::npos) << r.note;
  EXPECT_LT(r.ci_high, 1.0);  // the interval is still reported
  for (int n = 1; n <= 5; ++n) {
    AbSamples s = synthetic(100, 80, 0.01, n, 11);
    EXPECT_EQ(analyze_pair(s, {}).verdict, Verdict::Undecided) << n;
  }
  EXPECT_EQ(analyze_pair(synthetic(100, 80, 0.01, 6, 11), {}).verdict, Verdict::Faster);
  const AbReport rep = analyze({slower, synthetic(100, 110, 0.01, 6, 2)}, {});
  EXPECT_EQ(rep.undecided, 1);
  EXPECT_EQ(rep.slower, 1);
}

TEST(AbAnalysis, PairsForConfidenceAndDecided) {
  EXPECT_EQ(pairs_for_confidence(0.95), 6);  // 1 - 2/2^6 = 0.969
  EXPECT_EQ(pairs_for_confidence(0.75), 3);
  EXPECT_EQ(pairs_for_confidence(1 - 0.05 / 3), 7);  // three looks at 5 % in all
  EXPECT_NEAR(per_look_confidence(0.95, 4), 0.9875, 1e-12);
  AbRow same;
  same.verdict = Verdict::Same;
  same.ci_low = 0.99, same.ci_high = 1.015;
  EXPECT_TRUE(decided(same, 0.02));
  same.ci_high = 1.05;  // reaches past the tolerance: "same" only because the pairs could not tell
  EXPECT_FALSE(decided(same, 0.02));
  AbRow faster;
  faster.verdict = Verdict::Faster;
  EXPECT_TRUE(decided(faster, 0.02));
  AbRow undecided;
  undecided.verdict = Verdict::Undecided;
  EXPECT_FALSE(decided(undecided, 0.02));
}

}  // namespace
}  // namespace cctune::app
