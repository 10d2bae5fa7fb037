#include <gtest/gtest.h>

#include "core/stopping.hpp"

using namespace cctune;

TEST(NoiseCriterion, NeedsMinimumIterationsEvenWhenQuiet) {
  StopRule rule;
  rule.min_iterations = 10;
  NoiseCriterion c(rule);
  for (int i = 0; i < 9; ++i) c.add(5.0);
  EXPECT_FALSE(c.is_finished(0.0));
  c.add(5.0);
  EXPECT_TRUE(c.is_finished(0.0));
  EXPECT_EQ(c.reason(0.0), StopReason::Noise);
}

TEST(NoiseCriterion, NoisyDataRunsUntilTimeCap) {
  StopRule rule;
  rule.min_iterations = 5;
  rule.max_time_s = 1.0;
  rule.target_rel_noise = 0.001;
  NoiseCriterion c(rule);
  for (int i = 0; i < 40; ++i) c.add(i % 2 ? 1.0 : 3.0);
  EXPECT_FALSE(c.is_finished(0.5));
  EXPECT_TRUE(c.is_finished(1.0));
  EXPECT_EQ(c.reason(1.0), StopReason::Time);
}

TEST(NoiseCriterion, SlowPointsStopOnTimeAfterFewSamples) {
  StopRule rule;
  rule.min_iterations = 20;
  rule.max_time_s = 2.0;
  NoiseCriterion c(rule);
  c.add(900000.0);
  c.add(910000.0);
  EXPECT_FALSE(c.is_finished(5.0));
  c.add(905000.0);
  EXPECT_TRUE(c.is_finished(5.0));
}

TEST(NoiseCriterion, IterationCeiling) {
  StopRule rule;
  rule.max_iterations = 8;
  rule.min_iterations = 100;
  NoiseCriterion c(rule);
  for (int i = 0; i < 8; ++i) c.add(i);
  EXPECT_EQ(c.reason(0.0), StopReason::Iterations);
}
