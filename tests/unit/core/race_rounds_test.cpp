// Folding a race's reruns: one run per group, later points replace earlier ones (which join
// `screened`), new points join, a failed rerun marks the group, and round-0 repeats (verify's,
// replay's rounds) stay apart.
#include <gtest/gtest.h>

#include "core/race_rounds.hpp"

namespace cctune {
namespace {

PointResult point(std::uint64_t size, std::optional<Algorithm> algo, double us) {
  PointResult p;
  p.size_bytes = size;
  p.config.algo = algo;
  p.batch_us = us;
  return p;
}

RunResult run(const std::string& group, int round, std::vector<PointResult> points) {
  RunResult r;
  r.backend = "nccl";
  r.group = group;
  r.race_round = round;
  r.points = std::move(points);
  r.duration_s = 10;
  return r;
}

TEST(FoldRaceRounds, LaterPointsReplaceEarlierOnesWhichBecomeScreening) {
  Results res;
  res.runs = {run("default", 0, {point(1024, std::nullopt, 10)}), run("sockets", 0, {point(1024, std::nullopt, 5)}),
              run("default", 1, {point(1024, std::nullopt, 11)}),
              run("default", 2, {point(1024, Algorithm::Ring, 9), point(4096, std::nullopt, 20)})};
  fold_race_rounds(res);
  ASSERT_EQ(res.runs.size(), 2u);
  const RunResult& d = res.runs[0];
  EXPECT_EQ(d.group, "default");
  EXPECT_EQ(d.race_round, 2);
  ASSERT_EQ(d.points.size(), 3u);
  EXPECT_DOUBLE_EQ(d.points[0].batch_us, 11);  // round 1 replaced round 0's auto point
  EXPECT_EQ(d.points[1].config.algo, Algorithm::Ring);
  EXPECT_EQ(d.points[2].size_bytes, 4096u);
  ASSERT_EQ(d.screened.size(), 1u);
  EXPECT_DOUBLE_EQ(d.screened[0].batch_us, 10);
  EXPECT_DOUBLE_EQ(d.duration_s, 30);
  EXPECT_EQ(res.runs[1].group, "sockets");
}

TEST(FoldRaceRounds, AFailedRerunMarksTheGroup) {
  Results res;
  RunResult again = run("sockets", 1, {});
  again.status = RunStatus::Failed;
  again.reason = "worker crashed";
  res.runs = {run("sockets", 0, {point(1024, std::nullopt, 5)}), again};
  fold_race_rounds(res);
  ASSERT_EQ(res.runs.size(), 1u);
  EXPECT_EQ(res.runs[0].status, RunStatus::Failed);
  EXPECT_EQ(res.runs[0].reason, "worker crashed");
  EXPECT_EQ(res.runs[0].points.size(), 1u);
}

TEST(FoldRaceRounds, RoundZeroRepeatsStayApart) {
  Results res;
  res.runs = {run("default", 0, {point(1024, std::nullopt, 10)}), run("default", 0, {point(1024, std::nullopt, 11)})};
  fold_race_rounds(res);
  EXPECT_EQ(res.runs.size(), 2u);
}

}  // namespace
}  // namespace cctune
