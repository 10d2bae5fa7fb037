// `cctune replay`'s result from a sweep's results: the n-th run of each group is round n, a
// failed run leaves its round empty and is named, and the verdict follows verify's paired rule.
#include "app/replay/replay_report.hpp"

#include <gtest/gtest.h>

namespace cctune::app {
namespace {

RunResult run(const std::string& group, double step_us) {
  RunResult r;
  r.group = group;
  r.nranks = 2;
  r.nnodes = 1;
  PointResult p;
  p.iter_us.median = step_us;
  r.points.push_back(p);
  return r;
}

RunResult failed(const std::string& group) {
  RunResult r;
  r.group = group;
  r.status = RunStatus::Failed;
  r.reason = "worker rank 1 exited";
  return r;
}

TEST(ReplayReport, RoundsComeInRunOrderPerGroup) {
  Results res;
  for (int i = 0; i < 6; ++i) {  // A B, B A, A B, ...
    const bool a_first = i % 2 == 0;
    res.runs.push_back(run(a_first ? "default" : "profile", a_first ? 1000 + 2 * i : 500 + 2 * i));
    res.runs.push_back(run(a_first ? "profile" : "default", a_first ? 500 + 2 * i : 1000 + 2 * i));
  }
  const ReplayTimes t = collect_replay_times(res, 6, true);
  EXPECT_EQ(t.default_us, (std::vector<double>{1000, 1002, 1004, 1006, 1008, 1010}));
  EXPECT_EQ(t.profile_us, (std::vector<double>{500, 502, 504, 506, 508, 510}));
  EXPECT_TRUE(t.failures.empty());
  const ReplayVerdict v = judge_replay(t, AbOptions{});
  EXPECT_TRUE(v.compared);
  EXPECT_EQ(v.ab.verdict, Verdict::Faster);
  EXPECT_NEAR(v.default_ms, 1.005, 1e-9);
  EXPECT_NEAR(v.profile_ms, 0.505, 1e-9);
  EXPECT_NE(step_time_line(v, true).find("NCCL defaults 1.005 ms -> profile 0.505 ms"), std::string::npos) << step_time_line(v, true);
  // Three rounds are too few for a 95 % interval: no verdict (issue 43).
  EXPECT_EQ(judge_replay(collect_replay_times(res, 3, true), AbOptions{}).ab.verdict, Verdict::Undecided);
}

TEST(ReplayReport, AFailedRunLeavesItsRoundEmptyAndIsNamed) {
  Results res;
  res.runs = {run("default", 900), failed("default"), run("default", 910), run("other", 1)};
  const ReplayTimes t = collect_replay_times(res, 3, false);
  EXPECT_EQ(t.default_us, (std::vector<double>{900, 0, 910}));
  ASSERT_EQ(t.failures.size(), 1u);
  EXPECT_EQ(t.failures[0], "default round 2: worker rank 1 exited");
  EXPECT_TRUE(t.profile_us.empty());
  const ReplayVerdict v = judge_replay(t, AbOptions{});
  EXPECT_FALSE(v.compared);
  EXPECT_NEAR(v.default_ms, 0.905, 1e-9);  // the median of the rounds measured
  EXPECT_NEAR(v.default_interval.low, 0.9, 1e-9);
  EXPECT_NEAR(v.default_interval.high, 0.91, 1e-9);
}

TEST(ReplayReport, SlowerProfileIsARegressionInTheJson) {
  Results res;
  for (int i = 0; i < 6; ++i) res.runs.push_back(run("default", 1000)), res.runs.push_back(run("profile", 2000 + i));
  const ReplayTimes t = collect_replay_times(res, 6, true);
  const ReplayVerdict v = judge_replay(t, AbOptions{});
  workload::ReplayStep step;
  workload::CallShape shape;
  shape.op = ReduceOp::Sum;
  shape.count = 10;
  shape.bytes = 40;
  step.calls.push_back({"0xabc", shape, 2});
  const nlohmann::json j = to_json(replay_document(step, t, v, 0.02, true));
  EXPECT_EQ(j["schema"], "cctune.replay/1");
  EXPECT_EQ(j["step"]["verdict"], "slower");
  EXPECT_TRUE(j["regressed"].get<bool>());
  EXPECT_EQ(j["calls"][0]["repeats"], 2);
  EXPECT_EQ(j["calls"][0]["op"], "sum");
  EXPECT_EQ(j["profile_step_ms"].size(), 6u);
  EXPECT_LT(j["step"]["ci_high"].get<double>(), 1.0);
  EXPECT_FALSE(j["calls"][0].contains("group"));  // a call issued alone has none
}

TEST(ReplayReport, AGroupsMembersCarryItsIndexAndRepeats) {
  workload::ReplayStep step;
  workload::CallShape shape;
  shape.count = 10;
  shape.bytes = 40;
  step.calls = {{"0xabc", shape, 1, -1}, {"0xabc", shape, 3, 0}, {"0xabc", shape, 3, 0}};
  step.groups = 1;
  const nlohmann::json j = to_json(replay_document(step, ReplayTimes{}, ReplayVerdict{}, 0.02, false));
  ASSERT_EQ(j["calls"].size(), 3u);
  EXPECT_FALSE(j["calls"][0].contains("group"));
  EXPECT_EQ(j["calls"][1]["group"], 0);
  EXPECT_EQ(j["calls"][2]["group"], 0);
  EXPECT_EQ(j["calls"][2]["repeats"], 3);
  EXPECT_FALSE(j["calls"][1].contains("op"));  // the profiler's members have none
}

}  // namespace
}  // namespace cctune::app
