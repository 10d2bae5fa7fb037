#include "workload/step_cadence.hpp"

#include <gtest/gtest.h>

#include <random>

namespace cctune::workload {
namespace {

// `startup` calls of shapes 100.., then `steps` repeats of `step`, each step `step_ms` long
// (its calls evenly spread), the start-up at 1 ms a call.
std::vector<TimedCall> job(const std::vector<std::uint32_t>& step, int steps, int startup, double step_ms) {
  std::vector<TimedCall> calls;
  std::uint64_t t = 0;
  for (int i = 0; i < startup; ++i) calls.push_back({static_cast<std::uint32_t>(100 + i), t += 1000000});
  for (int s = 0; s < steps; ++s)
    for (std::uint32_t shape : step) calls.push_back({shape, t += static_cast<std::uint64_t>(step_ms * 1e6 / step.size())});
  return calls;
}

TEST(StepCadence, FindsTheStepOfADdpJobAfterItsStartUp) {
  const auto calls = job({1, 2, 3, 4, 4, 4, 5}, 40, 6, 27.0);
  const auto c = find_cadence({&calls, calls.size(), std::nullopt});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->calls_per_step, 7u);  // not 1: the run of three equal buckets is no step
  EXPECT_DOUBLE_EQ(c->steps, 40.0);  // the start-up calls are no step
  EXPECT_EQ(c->timed_steps, 40u - 4u);  // one warm-up step plus a tenth of the rest
  EXPECT_NEAR(c->step_ms, 27.0, 0.01);
}

TEST(StepCadence, TheWarmUpStepsAreNotTimed) {
  auto calls = job({1, 2}, 20, 0, 10.0);
  // The first steps are slow (connection set-up inside NCCL's first calls).
  for (std::size_t i = 0; i < calls.size(); ++i) calls[i].issue_ns += i < 2 ? 0 : 500000000;
  const auto c = find_cadence({&calls, calls.size(), std::nullopt});
  ASSERT_TRUE(c);
  EXPECT_NEAR(c->step_ms, 10.0, 0.01);
}

TEST(StepCadence, ACaptureThatKeptOnlyTheLastCallsCountsStepsFromAllCalls) {
  const auto calls = job({1, 2, 3}, 10, 0, 5.0);
  const auto c = find_cadence({&calls, 3000, std::nullopt});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->calls_per_step, 3u);
  EXPECT_DOUBLE_EQ(c->steps, 1000.0);
}

TEST(StepCadence, EqualCallsAreAStepOfOneCall) {
  const auto calls = job({7}, 50, 0, 2.0);
  const auto c = find_cadence({&calls, calls.size(), std::nullopt});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->calls_per_step, 1u);
  EXPECT_NEAR(c->step_ms, 2.0, 1e-9);
}

TEST(StepCadence, EqualBucketsInsideAStepAreOneStep) {
  // DDP with three equal gradient buckets: issued 2 ms apart in the backward pass, then 11 ms
  // of optimizer and forward before the next step's.
  std::vector<TimedCall> calls;
  std::uint64_t t = 0;
  for (int s = 0; s < 30; ++s)
    for (std::uint64_t gap_ms : {2, 2, 11}) calls.push_back({5, t += gap_ms * 1000000});
  const auto c = find_cadence({&calls, calls.size(), std::nullopt});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->calls_per_step, 3u);
  EXPECT_NEAR(c->step_ms, 15.0, 1e-6);
  EXPECT_DOUBLE_EQ(c->steps, 30.0);
}

// A busy host stretches random periods (the process was preempted): 30 % of them here, each by
// 2 to 9 times. That is noise, no pattern: the step stays the shapes' period.
std::vector<TimedCall> preempted(std::vector<TimedCall> calls, std::uint32_t every_in_10) {
  std::mt19937 random(7);  // the engine's sequence is fixed by the standard
  std::uint64_t shift = 0, previous = 0;
  for (TimedCall& call : calls) {
    const std::uint64_t gap = call.issue_ns - previous;
    previous = call.issue_ns;
    if (random() % 10 < every_in_10) shift += gap * (1 + random() % 8);
    call.issue_ns += shift;
  }
  return calls;
}

TEST(StepCadence, APreemptedProcessKeepsItsStep) {
  const auto calls = preempted(job({1, 2}, 40, 0, 1.0), 3);
  const auto c = find_cadence({&calls, calls.size(), std::nullopt});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->calls_per_step, 2u);
  EXPECT_DOUBLE_EQ(c->steps, 40.0);
}

TEST(StepCadence, EqualBucketsStayOneStepOnABusyHost) {
  std::vector<TimedCall> calls;
  std::uint64_t t = 0;
  for (int s = 0; s < 60; ++s)
    for (std::uint64_t gap_ms : {1, 1, 1, 9}) calls.push_back({5, t += gap_ms * 1000000});
  const auto noisy = preempted(calls, 1);
  const auto c = find_cadence({&noisy, noisy.size(), std::nullopt});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->calls_per_step, 4u);
}

TEST(StepCadence, NoRepeatIsNoCadence) {
  const auto calls = job({}, 0, 50, 1.0);
  EXPECT_FALSE(find_cadence({&calls, calls.size(), std::nullopt}));
  const auto twice = job({1, 2, 3}, 2, 0, 1.0);
  EXPECT_FALSE(find_cadence({&twice, twice.size(), std::nullopt}));
  const std::vector<TimedCall> none;
  EXPECT_FALSE(find_cadence({&none, 0, std::nullopt}));
}

TEST(StepCadence, TheJobsOwnStepCountSetsThePeriod) {
  // Two identical halves per step: detection alone would call each half a step.
  const auto calls = job({1, 2, 1, 2}, 10, 0, 8.0);
  const auto detected = find_cadence({&calls, calls.size(), std::nullopt});
  ASSERT_TRUE(detected);
  EXPECT_EQ(detected->calls_per_step, 2u);
  const auto told = find_cadence({&calls, calls.size(), 10});
  ASSERT_TRUE(told);
  EXPECT_EQ(told->calls_per_step, 4u);
  EXPECT_DOUBLE_EQ(told->steps, 10.0);
  EXPECT_NEAR(told->step_ms, 8.0, 0.01);
  EXPECT_FALSE(find_cadence({&calls, calls.size(), 41}));  // more steps than calls
  EXPECT_FALSE(find_cadence({&calls, calls.size(), 0}));
  // A start-up broadcast before the steps leaves the period as it is.
  auto with_startup = job({1, 2, 1, 2}, 10, 1, 8.0);
  const auto startup_told = find_cadence({&with_startup, with_startup.size(), 10});
  ASSERT_TRUE(startup_told);
  EXPECT_EQ(startup_told->calls_per_step, 4u);
  EXPECT_NEAR(startup_told->step_ms, 8.0, 0.01);
}

TEST(StepCadence, AClockThatWentBackGivesNoTiming) {
  auto calls = job({1, 2}, 10, 0, 4.0);
  calls.back().issue_ns = 0;
  EXPECT_FALSE(find_cadence({&calls, calls.size(), std::nullopt}));
}

}  // namespace
}  // namespace cctune::workload
