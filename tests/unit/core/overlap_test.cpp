// `--overlap` (docs/TUNING.md "Collectives beside compute"): the lost-compute arithmetic and the
// results codec of a point's overlap figures.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/overlap_math.hpp"
#include "core/results_json.hpp"

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

TEST(OverlapResults, RoundTripAndCheckedNumbers) {
  Results r;
  RunResult run;
  run.backend = "nccl";
  run.group = "default";
  run.nranks = 2;
  run.nnodes = 1;
  PointResult p;
  p.size_bytes = 1 << 20;
  p.count = 1 << 18;
  p.batch_us = 40;
  p.iter_us.median = 41;
  p.iter_us.count = 10;
  p.overlap = PointOverlap{6, 1.25, 8};
  run.points.push_back(p);
  PointResult alone = p;
  alone.overlap.reset();
  run.points.push_back(alone);
  r.runs.push_back(run);
  const nlohmann::json j = r;
  EXPECT_EQ(j["runs"][0]["points"][0]["overlap"], (nlohmann::json{{"rounds", 6}, {"compute_slowdown", 1.25}, {"compute_us", 8.0}}));
  EXPECT_FALSE(j["runs"][0]["points"][1].contains("overlap"));  // absent, not null: old outputs unchanged
  const Results back = parse_results(j.dump(), "r.json");
  EXPECT_EQ(back.runs[0].points[0].overlap, p.overlap);
  EXPECT_FALSE(back.runs[0].points[1].overlap);
  for (const nlohmann::json& bad : {nlohmann::json{{"rounds", 1}, {"compute_slowdown", 0}, {"compute_us", 1}},
                                    nlohmann::json{{"rounds", 1}, {"compute_slowdown", "1.2"}, {"compute_us", 1}},
                                    nlohmann::json{{"rounds", 1}, {"compute_slowdown", 1.2}},
                                    nlohmann::json{{"rounds", -1}, {"compute_slowdown", 1.2}, {"compute_us", 1}}}) {
    nlohmann::json mangled = j;
    mangled["runs"][0]["points"][0]["overlap"] = bad;
    EXPECT_THROW(parse_results(mangled.dump(), "r.json"), UsageError) << bad.dump();
  }
}
