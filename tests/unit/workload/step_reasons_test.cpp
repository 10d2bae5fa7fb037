// Why find_step finds no step, as `cctune verify --job` and `workload import` print it: what
// the calls showed (call numbers, shapes by name) and a fix that is more than --steps where
// more applies (step_reasons.hpp).
#include <gtest/gtest.h>

#include "workload/step_cadence.hpp"

namespace cctune::workload {
namespace {

// `steps` steps of shapes {1, 1, 2} after one start-up call (shape 100), 4 ms a step.
std::vector<TimedCall> stand_in(int steps) {
  std::vector<TimedCall> c{{100, 0}};
  for (int s = 0; s < steps; ++s)
    for (std::uint32_t shape : {1u, 1u, 2u}) c.push_back({shape, (c.size() + 1) * 1000000ull});
  return c;
}

std::string named(std::uint32_t shape) { return "allreduce float32 count " + std::to_string(shape); }

StepFinding find(const std::vector<TimedCall>& calls, std::optional<std::uint64_t> steps = std::nullopt, std::uint64_t total = 0) {
  return find_step({&calls, total ? total : calls.size(), steps, named});
}

void expect_has(const std::string& text, const std::string& part) { EXPECT_NE(text.find(part), std::string::npos) << text; }

TEST(StepReasons, TwoStepsAreTooFew) {
  const StepFinding f = find(stand_in(2));
  ASSERT_FALSE(f.cadence);
  expect_has(f.no_step.reason, "repeat a step of 3 calls only twice (calls 2 to 7 of 7)");
  expect_has(f.no_step.fix, "run the job for more steps");
  expect_has(f.no_step.fix, "--steps N");
}

// Where the repetition stopped, by call number and shape.
TEST(StepReasons, ARepetitionThatStopsNamesTheCallThatStoppedIt) {
  std::vector<TimedCall> calls = stand_in(2);
  calls.push_back({9, 90000000});
  calls.push_back({8, 91000000});
  const StepFinding f = find(calls);
  ASSERT_FALSE(f.cadence);
  expect_has(f.no_step.reason, "then call 8 is allreduce float32 count 9 where the step has allreduce float32 count 1");
}

TEST(StepReasons, CallsThatChangeEveryStepSaySo) {
  std::vector<TimedCall> calls;
  for (std::uint32_t i = 0; i < 40; ++i) calls.push_back({1000 + i, i * 1000000ull});
  const StepFinding f = find(calls);
  ASSERT_FALSE(f.cadence);
  expect_has(f.no_step.reason, "its last 40 calls repeat no sequence of up to 20 calls: they hold 40 different shapes");
  expect_has(f.no_step.reason, "allreduce float32 count 1039)");
  expect_has(f.no_step.fix, "change from step to step");
}

TEST(StepReasons, AStepLongerThanLookedForSaysItsLength) {
  std::vector<TimedCall> calls;
  for (std::uint32_t i = 0; i < 12288; ++i) calls.push_back({i % 5000, i * 1000ull});
  const StepFinding f = find(calls, std::nullopt, 50000);
  ASSERT_FALSE(f.cadence);
  expect_has(f.no_step.reason, "its calls repeat every 5000 calls (calls 37713 to 50000 of 50000), a step longer than the 4096 calls");
  expect_has(f.no_step.fix, "--steps N");
}

TEST(StepReasons, AStepCountTheCallsContradictSaysWhy) {
  const StepFinding f = find(stand_in(30), 31);
  ASSERT_FALSE(f.cadence);
  expect_has(f.no_step.reason, "--steps 31 does not fit its calls: they repeat every 3 calls, 30 times (calls 2 to 91 of 91)");
  expect_has(f.no_step.fix, "leave --steps out");
  expect_has(find(stand_in(30), 92).no_step.reason, "--steps 92 is more than the 91 calls it issued");
}

}  // namespace
}  // namespace cctune::workload
