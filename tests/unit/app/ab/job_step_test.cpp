// verify --workload: the job's weights on verify's rows, and the rounds summed per step.
#include <gtest/gtest.h>

#include "app/ab/job_step.hpp"

namespace cctune::app {
namespace {

// One of the job's planned points: its call shape and calls per step.
JobPoint job(Collective c, DType t, std::uint64_t size, double calls) {
  return {.collective = c, .dtype = t, .size_bytes = size, .calls_per_step = calls};
}

TEST(JobStep, WeightsGoToTheNearestSizeOfTheJobsTypeElseSplit) {
  const std::vector<JobPoint> rows{{Collective::AllReduce, DType::Float32, 4 << 20},
                                   {Collective::AllReduce, DType::BFloat16, 4 << 20},
                                   {Collective::AllReduce, DType::Float32, 64 << 20},
                                   {Collective::Broadcast, DType::Int32, 8}};
  const std::vector<double> w = row_weights(
      rows, {job(Collective::AllReduce, DType::Float32, 4200000, 6),   // 4 MiB float32
             job(Collective::AllReduce, DType::Float16, 60 << 20, 1),  // 64 MiB, only float32 there
             job(Collective::Broadcast, DType::Int32, 28, 2), job(Collective::AllGather, DType::Float32, 1024, 5)});  // not measured
  EXPECT_EQ(w, (std::vector<double>{6, 0, 1, 2}));
  // A type measured twice at the nearest size splits when neither row is the job's type.
  const std::vector<double> split = row_weights(rows, {job(Collective::AllReduce, DType::Float16, 4 << 20, 4)});
  EXPECT_EQ(split, (std::vector<double>{2, 2, 0, 0}));
}

TEST(JobStep, RoundsSumTheWeightedRowsAndJudgeTheStep) {
  // The profile loses 10% at the small size and gains 20% at the large one; the job issues the
  // small one ten times a step, so it is slower per step although the geometric mean is even.
  AbSamples small{Collective::AllReduce, 1 << 20, {}, {}}, large{Collective::AllReduce, 64 << 20, {}, {}};
  for (int r = 0; r < 8; ++r) {
    const double jitter = 1.0 + 0.002 * r;
    small.a_us.push_back(20 * jitter), small.b_us.push_back(22 * jitter);
    large.a_us.push_back(500 * jitter), large.b_us.push_back(400 * jitter);
  }
  const AbSamples step = job_step_samples({small, large}, {100, 1});
  ASSERT_EQ(step.a_us.size(), 8u);
  EXPECT_DOUBLE_EQ(step.a_us[0], 100 * 20 + 500);
  EXPECT_DOUBLE_EQ(step.b_us[0], 100 * 22 + 400);
  const AbRow row = analyze_pair(step, AbOptions{});
  EXPECT_EQ(row.verdict, Verdict::Slower);
  EXPECT_NEAR(row.speedup, 2500.0 / 2600.0, 1e-9);
  EXPECT_EQ(analyze_pair(job_step_samples({small, large}, {1, 1}), AbOptions{}).verdict, Verdict::Faster);
  // A round missing one weighted side is left out; an unweighted row does not matter.
  large.b_us[3] = 0;
  EXPECT_EQ(job_step_samples({small, large}, {1, 1}).a_us.size(), 7u);
  EXPECT_EQ(job_step_samples({small, large}, {1, 0}).a_us.size(), 8u);
}

}  // namespace
}  // namespace cctune::app
