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

// A training job as one communicator sees it, shaped as people write them: `startup` calls
// before the first step (shape 100, a parameter broadcast each), `steps` steps of `step`'s
// shapes spread over `step_ms` each, an evaluation's all-reduce (shape 70) taking `eval_ms`
// after every `eval_every`-th step, a last step cut after `last_step_calls` calls (the job
// stopped mid-step), and `tail` calls after the last step (a barrier, shape 90, then a metrics
// reduction and a checkpoint broadcast).
struct Job {
  std::vector<std::uint32_t> step{1, 1, 2};  // the stand-in job's: two equal all-reduces and a larger one
  int steps = 30, startup = 1, eval_every = 0, tail = 0, last_step_calls = -1;
  double step_ms = 4.0, eval_ms = 20.0;
  std::vector<TimedCall> calls() const {
    std::vector<TimedCall> c;
    std::uint64_t t = 0;
    for (int i = 0; i < startup; ++i) c.push_back({100, t += 1000000});
    for (int s = 0; s < steps; ++s) {
      const bool cut = s == steps - 1 && last_step_calls >= 0;
      const std::size_t n = cut ? static_cast<std::size_t>(last_step_calls) : step.size();
      for (std::size_t k = 0; k < n; ++k)
        c.push_back({step[k], t + static_cast<std::uint64_t>(step_ms * 1e6 * double(k) / double(step.size()))});
      t += static_cast<std::uint64_t>(step_ms * 1e6);
      if (!cut && eval_every > 0 && (s + 1) % eval_every == 0) c.push_back({70, t += static_cast<std::uint64_t>(eval_ms * 1e6)});
    }
    for (int k = 0; k < tail; ++k) c.push_back({static_cast<std::uint32_t>(90 + k), t += 1000000});
    return c;
  }
};

std::optional<StepCadence> cadence_of(const Job& job, std::optional<std::uint64_t> steps = std::nullopt) {
  const std::vector<TimedCall> calls = job.calls();
  return find_cadence({&calls, calls.size(), steps});
}

// R6 of the 2026-11-28 reliability review: PyTorch's dist.barrier() is a one-element
// all-reduce, and many scripts end with it, a metrics reduction or a checkpoint. The step
// matched from the last call backwards saw no repeat at all.
TEST(StepCadence, CallsAfterTheLastStepLeaveTheSteps) {
  for (int steps : {30, 300})
    for (int tail : {1, 2, 3}) {
      Job job;
      job.steps = steps, job.tail = tail;
      const auto c = cadence_of(job);
      ASSERT_TRUE(c) << steps << " steps, " << tail << " calls after them";
      EXPECT_EQ(c->calls_per_step, 3u);
      EXPECT_DOUBLE_EQ(c->steps, steps);
      EXPECT_EQ(c->timed_steps, static_cast<std::uint64_t>(steps - 1 - (steps - 1) / 10));
      EXPECT_NEAR(c->step_ms, 4.0, 1e-6);
    }
}

// FSDP's sync_module_states broadcasts every parameter before the first step: a start-up
// that repeats itself, longer than the steps after it, and the job ends with a barrier.
TEST(StepCadence, AStartUpThatRepeatsItselfIsNoStep) {
  Job job;
  job.startup = 200, job.tail = 1;
  const auto c = cadence_of(job);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->calls_per_step, 3u);
  EXPECT_DOUBLE_EQ(c->steps, 30.0);
  EXPECT_NEAR(c->step_ms, 4.0, 1e-6);
}

// An evaluation every m steps adds its all-reduce between two steps: the step stays the
// training step, and its time spreads the evaluation's over the m steps around it, timed in
// whole cycles so that every run of the job times the same share of evaluations.
TEST(StepCadence, AnEvaluationEveryFewStepsStaysOutOfTheStep) {
  for (int steps : {30, 300})
    for (int every : {5, 10})
      for (int tail : {0, 1}) {
        Job job;
        job.steps = steps, job.eval_every = every, job.tail = tail;
        const auto c = cadence_of(job);
        ASSERT_TRUE(c) << steps << " steps, an evaluation every " << every;
        EXPECT_EQ(c->calls_per_step, 3u) << steps << " steps, an evaluation every " << every;
        EXPECT_DOUBLE_EQ(c->steps, steps);
        EXPECT_EQ(c->timed_steps % static_cast<std::uint64_t>(every), 0u);
        EXPECT_NEAR(c->step_ms, 4.0 + 20.0 / every, 1e-6) << steps << " steps, an evaluation every " << every;
      }
}

// A job that stopped inside its last step (a crash, or a capture written while a step ran)
// still shows the steps before it, found or given by the job.
TEST(StepCadence, AJobStoppedMidStepKeepsItsSteps) {
  for (int done : {1, 2}) {
    Job job;
    job.last_step_calls = done, job.eval_every = 5;
    const auto found = cadence_of(job);
    ASSERT_TRUE(found);
    EXPECT_EQ(found->calls_per_step, 3u);
    EXPECT_DOUBLE_EQ(found->steps, 29.0);  // the cut step is none
    EXPECT_NEAR(found->step_ms, 4.0 + 20.0 / 5, 1e-6);
    job.eval_every = 0;
    const auto told = cadence_of(job, 30);  // --steps 30: the job said so
    ASSERT_TRUE(told);
    EXPECT_EQ(told->calls_per_step, 3u);
    EXPECT_DOUBLE_EQ(told->steps, 30.0);
    EXPECT_NEAR(told->step_ms, 4.0, 1e-6);
  }
}

// DDP with three equal gradient buckets (2 ms apart in the backward pass, 11 ms to the next
// step), ending with a barrier, with and without an evaluation every 10 steps: the step is the
// three buckets, the evaluation no part of it.
TEST(StepCadence, EqualBucketsWithABarrierAndAnEvaluation) {
  for (int every : {0, 10}) {
    std::vector<TimedCall> calls{{100, 0}};
    std::uint64_t t = 1000000;
    for (int s = 0; s < 60; ++s) {
      for (std::uint64_t gap_ms : {2, 2, 11}) calls.push_back({5, t += gap_ms * 1000000});
      if (every && (s + 1) % every == 0) calls.push_back({70, t += 5000000});
    }
    calls.push_back({90, t += 1000000});
    const auto c = find_cadence({&calls, calls.size(), std::nullopt});
    ASSERT_TRUE(c) << "an evaluation every " << every;
    EXPECT_EQ(c->calls_per_step, 3u) << "an evaluation every " << every;
    EXPECT_DOUBLE_EQ(c->steps, 60.0);
    EXPECT_NEAR(c->step_ms, every ? 15.0 + 5.0 / every : 15.0, 1e-6);
  }
}

// A busy host stretches random steps; with an evaluation and a final barrier the step stays.
TEST(StepCadence, NoisyDurationsKeepTheStepAmongExtraCalls) {
  Job job;
  job.steps = 60, job.eval_every = 5, job.tail = 1;
  const auto calls = preempted(job.calls(), 3);
  const auto c = find_cadence({&calls, calls.size(), std::nullopt});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->calls_per_step, 3u);
  EXPECT_DOUBLE_EQ(c->steps, 60.0);
  std::vector<TimedCall> buckets{{100, 0}};
  std::uint64_t t = 1000000;
  for (int s = 0; s < 60; ++s)
    for (std::uint64_t gap_ms : {1, 1, 1, 9}) buckets.push_back({5, t += gap_ms * 1000000});
  buckets.push_back({90, t += 1000000});
  const auto noisy = preempted(buckets, 1);
  const auto b = find_cadence({&noisy, noisy.size(), std::nullopt});
  ASSERT_TRUE(b);
  EXPECT_EQ(b->calls_per_step, 4u);
}

// A capture that kept only its last calls (the ring of 3 x 4096): steps from all its calls,
// the evaluation's calls spread over them.
TEST(StepCadence, ALongJobWithEvaluationsCountsTrainingSteps) {
  Job job;
  job.steps = 10000, job.eval_every = 5, job.tail = 1, job.step_ms = 1.0, job.eval_ms = 1.0;
  const std::vector<TimedCall> all = job.calls();
  const std::vector<TimedCall> last(all.end() - 12288, all.end());
  const auto c = find_cadence({&last, all.size(), std::nullopt});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->calls_per_step, 3u);
  EXPECT_NEAR(c->steps, 10000.0, 10.0);
  EXPECT_NEAR(c->step_ms, 1.2, 1e-6);
}

// R15 of the review: --steps 31 for a 30-step job made a step of 2 calls with 40 timed steps.
// A step count the calls contradict gives no cadence; one that fits them is taken.
TEST(StepCadence, AStepCountTheCallsContradictIsNoCadence) {
  Job job;
  EXPECT_FALSE(cadence_of(job, 31));  // 91 calls cannot hold 31 steps of 3
  EXPECT_FALSE(cadence_of(job, 45));  // steps of 2 calls: the calls repeat every 3
  job.eval_every = 5, job.tail = 1;
  EXPECT_FALSE(cadence_of(job, 31));
  const auto told = cadence_of(job, 30);
  ASSERT_TRUE(told);
  EXPECT_EQ(told->calls_per_step, 3u);
  const auto halves = cadence_of(job, 15);  // two of the job's steps are one of its own
  ASSERT_TRUE(halves);
  EXPECT_EQ(halves->calls_per_step, 6u);
  // Calls that repeat nothing take the count as they come, where few calls are left over.
  std::vector<TimedCall> varied;
  for (std::uint32_t i = 0; i < 90; ++i) varied.push_back({1000 + i, i * 1000000ull});
  EXPECT_TRUE(find_cadence({&varied, varied.size(), 30}));
  EXPECT_FALSE(find_cadence({&varied, varied.size(), 31}));  // 2 calls a step leave 28 over
}

// A metrics group's few calls (a barrier at its creation, then four reductions of the loss)
// repeat one call four times: too few calls to be a job's steps, which busiest_with_cadence
// would otherwise take where the gradients' communicator shows none.
TEST(StepCadence, AFewEqualCallsAreNoSteps) {
  std::vector<TimedCall> calls{{90, 0}};
  for (std::uint64_t i = 1; i <= 4; ++i) calls.push_back({7, i * 1000000});
  EXPECT_FALSE(find_cadence({&calls, calls.size(), std::nullopt}));
  for (std::uint64_t i = 5; i <= 9; ++i) calls.push_back({7, i * 1000000});
  const auto enough = find_cadence({&calls, calls.size(), std::nullopt});  // nine: eight after the first
  ASSERT_TRUE(enough);
  EXPECT_EQ(enough->calls_per_step, 1u);
}

TEST(StepCadence, AClockThatWentBackGivesNoTiming) {
  auto calls = job({1, 2}, 10, 0, 4.0);
  calls.back().issue_ns = 0;
  EXPECT_FALSE(find_cadence({&calls, calls.size(), std::nullopt}));
}

}  // namespace
}  // namespace cctune::workload
