// The straggler rule on synthetic per-rank data: per-operation times of every rank are
// generated (a healthy job with noise, or one rank launching late), reduced to per-rank
// columns with the definition of docs/RESULTS.md, and judged.
#include "diagnose/straggler.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "core/statistics.hpp"

using namespace cctune;
using namespace cctune::diagnose;

namespace {

// times[r][i]: rank r's own time of operation i. Mirrors the engine (collectives/arrival_skew):
// wait = own - fastest; the fastest arrived last; ties split.
RankTimings columns_of(const std::vector<std::vector<double>>& times) {
  const std::size_t n = times.size(), ops = times[0].size();
  RankTimings t;
  std::vector<double> credit(n, 0.0);
  std::vector<std::vector<double>> waits(n);
  for (std::size_t i = 0; i < ops; ++i) {
    double fastest = times[0][i];
    for (std::size_t r = 0; r < n; ++r) fastest = std::min(fastest, times[r][i]);
    const auto tied = static_cast<double>(std::count_if(times.begin(), times.end(), [&](const auto& row) { return row[i] == fastest; }));
    for (std::size_t r = 0; r < n; ++r) {
      waits[r].push_back(times[r][i] - fastest);
      if (times[r][i] == fastest) credit[r] += 1.0 / tied;
    }
  }
  for (std::size_t r = 0; r < n; ++r) {
    t.batch_us.push_back(median(times[r]));
    t.iter_median_us.push_back(median(times[r]));
    t.wait_median_us.push_back(median(waits[r]));
    t.last_pct.push_back(100.0 * credit[r] / static_cast<double>(ops));
  }
  return t;
}

// A job of n ranks, `ops` operations of op_us: every rank's time carries independent noise
// (5 % gaussian plus exponential jitter of 1 us) and 2 % of operations a 50 us hiccup on one
// random rank; `slow` (if >= 0) launches `delay_us` late, so every other rank waits for it.
PointResult job(std::mt19937& rng, int n, int ops, double op_us, int slow = -1, double delay_us = 0) {
  std::normal_distribution<double> gauss(0, 0.05 * op_us);
  std::exponential_distribution<double> jitter(1.0);
  std::uniform_real_distribution<double> u(0, 1);
  std::uniform_int_distribution<int> who(0, n - 1);
  std::vector<std::vector<double>> times(n);
  for (int i = 0; i < ops; ++i) {
    const int hiccup = u(rng) < 0.02 ? who(rng) : -1;
    for (int r = 0; r < n; ++r) {
      double t = std::max(0.1, op_us + gauss(rng) + jitter(rng));
      if (r == hiccup) t += 50;
      if (slow >= 0 && r != slow) t += delay_us;
      times[r].push_back(t);
    }
  }
  PointResult p;
  p.ranks = columns_of(times);
  return p;
}

std::vector<RankPlace> places(int n) {
  std::vector<RankPlace> out;
  for (int r = 0; r < n; ++r) out.push_back({"gpu-0" + std::to_string(r / 8), r % 8, r % 8});
  return out;
}

}  // namespace

TEST(Straggler, AHealthyNoisyJobNamesNobodyIn200SeededTrials) {
  std::mt19937 rng(17);
  int named = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const int n = 2 << (trial % 4);  // 2, 4, 8, 16 ranks
    const double op_us = trial % 2 ? 12.0 : 800.0;
    if (find_straggler(job(rng, n, 200, op_us), places(n))) ++named;
  }
  EXPECT_EQ(named, 0);
}

TEST(Straggler, ALateLauncherIsNamedWithItsHostAndGpu) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 50; ++trial) {
    const int n = 16, slow = trial % n;
    const auto s = find_straggler(job(rng, n, 200, 20.0, slow, 30.0), places(n));
    ASSERT_TRUE(s) << "trial " << trial;
    EXPECT_EQ(s->rank, slow);
    EXPECT_EQ(s->host, "gpu-0" + std::to_string(slow / 8));
    EXPECT_EQ(s->gpu, slow % 8);
    EXPECT_GT(s->last_pct, 90);
    EXPECT_NEAR(s->others_wait_us, 30.0, 5.0);
  }
}

TEST(Straggler, AWaitBelowTheFloorIsNoise) {
  std::mt19937 rng(9);
  // 3 us late at 20 us operations: below min_wait_us (5) -> not named, though always last.
  EXPECT_FALSE(find_straggler(job(rng, 8, 200, 20.0, 3, 3.0), places(8)));
  // 40 us late at 1 ms operations: 4 %, below min_wait_fraction (10 %).
  EXPECT_FALSE(find_straggler(job(rng, 8, 200, 1000.0, 3, 40.0), places(8)));
  // The same 40 us at 100 us operations is named.
  EXPECT_TRUE(find_straggler(job(rng, 8, 200, 100.0, 3, 40.0), places(8)));
}

TEST(Straggler, NeedsPerRankDataOfAnOkPointWithTwoRanks) {
  PointResult p;
  EXPECT_FALSE(find_straggler(p, {}));
  p.ranks = RankTimings{{10}, {10}, {0}, {100}};
  EXPECT_FALSE(find_straggler(p, {}));
  p.ranks = RankTimings{{10, 30}, {10, 30}, {0, 20}, {100, 0}};
  EXPECT_TRUE(find_straggler(p, {}));
  p.status = PointStatus::Skipped;
  EXPECT_FALSE(find_straggler(p, {}));
}

TEST(Straggler, DescribesTheRankWhereItRan) {
  Straggler s;
  s.rank = 13;
  s.host = "gpu-07";
  s.gpu = 5;
  s.last_pct = 91.6;
  EXPECT_EQ(describe(s), "rank 13 (host gpu-07, GPU 5) arrives last in 92 % of operations");
  s.gpu = -1;
  EXPECT_EQ(describe(s), "rank 13 (host gpu-07) arrives last in 92 % of operations");
  s.host.clear();
  EXPECT_EQ(describe(s), "rank 13 arrives last in 92 % of operations");
  StragglerTally t{s, 14, 16};
  EXPECT_EQ(describe(t), "rank 13 arrives last in 92 % of operations at 14 of 16 points");
}

TEST(Straggler, ARunNamesARankSeenAtEnoughPoints) {
  std::mt19937 rng(3);
  RunResult run;
  run.nranks = 4;
  run.places = places(4);
  for (int i = 0; i < 10; ++i) run.points.push_back(job(rng, 4, 100, 20.0, i < 7 ? 1 : -1, 30.0));
  auto found = find_stragglers(run);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].straggler.rank, 1);
  EXPECT_EQ(found[0].points_named, 7);
  EXPECT_EQ(found[0].points_measured, 10);
  EXPECT_EQ(describe(found[0]), "rank 1 (host gpu-00, GPU 1) arrives last in 100 % of operations at 7 of 10 points");
  // One point alone (a preemption) does not name a rank for the run.
  RunResult once = run;
  once.points.clear();
  for (int i = 0; i < 10; ++i) once.points.push_back(job(rng, 4, 100, 20.0, i == 0 ? 2 : -1, 30.0));
  EXPECT_TRUE(find_stragglers(once).empty());
  // cctune.results/1 points (no per-rank data) name nobody.
  RunResult old;
  old.points.resize(3);
  EXPECT_TRUE(find_stragglers(old).empty());
}
