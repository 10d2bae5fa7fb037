// sweep --workload's --overlap default (docs/TUNING.md "Collectives beside compute").
#include "workload/overlap_default.hpp"

#include <gtest/gtest.h>

namespace cctune::workload {
namespace {

WorkloadPlan plan_of(double calls_us_per_step, double step_us, bool estimated = false) {
  WorkloadPlan plan;
  plan.per_step = true;
  plan.step_us = step_us;
  JobPoint p;
  p.calls_per_step = 2;
  p.time_us_per_step = calls_us_per_step;
  p.time_estimated = estimated;
  plan.points.push_back(p);
  return plan;
}

TEST(OverlapDefault, OnWhereNoCollectiveRunsInAQuarterOfTheStepOrMore) {
  const OverlapDefault ddp = overlap_default(plan_of(1000, 3000));  // 67 % compute
  EXPECT_TRUE(ddp.on);
  EXPECT_NEAR(*ddp.compute_share, 2.0 / 3, 1e-12);
  EXPECT_NE(ddp.why.find("overlap on: no collective runs in 67 % of the job's step"), std::string::npos) << ddp.why;
  EXPECT_NE(ddp.why.find("--overlap off"), std::string::npos) << ddp.why;
  EXPECT_TRUE(overlap_default(plan_of(750, 1000)).on);              // exactly the threshold
  const OverlapDefault loop = overlap_default(plan_of(900, 1000));  // back-to-back collectives
  EXPECT_FALSE(loop.on);
  EXPECT_NE(loop.why.find("--overlap measures them beside compute"), std::string::npos) << loop.why;
  EXPECT_NE(overlap_default(plan_of(1000, 3000, true)).why.find("estimated"), std::string::npos);
  EXPECT_DOUBLE_EQ(*overlap_default(plan_of(5000, 3000)).compute_share, 0.0);  // more call time than step: none
}

TEST(OverlapDefault, OffWithoutAStepTime) {
  WorkloadPlan untimed = plan_of(1000, 0);
  EXPECT_FALSE(overlap_default(untimed).on);
  EXPECT_FALSE(overlap_default(untimed).compute_share);
  EXPECT_NE(overlap_default(untimed).why.find("CCTUNE_WORKLOAD_STEP_TIMES=1"), std::string::npos);
  WorkloadPlan per_capture = plan_of(1000, 3000);
  per_capture.per_step = false;
  EXPECT_FALSE(overlap_default(per_capture).on);
}

}  // namespace
}  // namespace cctune::workload
