// `--overlap` (docs/TUNING.md "Collectives beside compute"): the lost-compute arithmetic (the
// results codec of a point's figures: results_json_test.cpp).
#include <gtest/gtest.h>

#include "core/overlap_math.hpp"

using namespace cctune;

// GEMMs of 100 us alone; a window of 300 us from t = 0.
TEST(OverlapMath, NoCostReadsOne) { EXPECT_DOUBLE_EQ(window_slowdown(-50, {50, 150, 250, 350, 450}, 300, 100), 1.0); }

TEST(OverlapMath, LostComputeInTheWindowGivesTheSlowdown) {
  // The two GEMMs in the window take 150 us each (100 alone): 100 us lost in 300; the third
  // starts as the window ends and is not counted.
  const double s = window_slowdown(0, {150, 300, 450}, 300, 100);
  EXPECT_NEAR(s, 1.5, 1e-12);
  EXPECT_NEAR(compute_us_of(300, s), 100.0, 1e-9);  // per window: the compute lost
}

TEST(OverlapMath, AWindowShorterThanOneGemmStillCounts) {
  // A 20 us collective inside one GEMM that took 110 us: 10 us lost in 20 us covered.
  const double s = window_slowdown(-40, {70}, 20, 100);
  EXPECT_NEAR(s, 2.0, 1e-12);
  EXPECT_NEAR(compute_us_of(20, s), 10.0, 1e-12);
}

TEST(OverlapMath, GemmsOutsideTheWindowAndUnknownsCountNothing) {
  EXPECT_DOUBLE_EQ(window_slowdown(-300, {-200, -100}, 50, 100), 0.0);  // drained before the window
  EXPECT_DOUBLE_EQ(window_slowdown(0, {100}, 50, 0), 0.0);              // no solo time
  EXPECT_DOUBLE_EQ(window_slowdown(0, {}, 50, 100), 0.0);
  EXPECT_DOUBLE_EQ(compute_us_of(100, 0), 0.0);
  // More lost than covered (a GEMM held off the GPU) is capped at 100x, never infinite.
  EXPECT_NEAR(window_slowdown(0, {1000}, 50, 100), 100.0, 1e-9);
}

TEST(OverlapMath, TheComputesHalfWidthSpansEveryRound) {
  // Slowdowns 1.25 (median), 1.1, 1.5 on a 300 us collective: 60 us at the median, 27.3 and
  // 100 us at the ends; the interval must reach the farther one.
  EXPECT_NEAR(compute_halfwidth_us(300, {1.1, 1.25, 1.5}), 40.0, 1e-9);
  EXPECT_NEAR(compute_halfwidth_us(300, {1.25, 1.25, 1.25}), 0.0, 1e-12);  // steady rounds
  EXPECT_NEAR(compute_halfwidth_us(300, {1.25}), 60.0, 1e-9);              // one round proves nothing
  EXPECT_DOUBLE_EQ(compute_halfwidth_us(300, {}), 0.0);                    // no round told
}
