// tune --job's successive-halving cut (app/job/job_race.hpp): the sweep's survivors rule while the
// pairs are fewer than --rounds, medians alone from then on.
#include <gtest/gtest.h>

#include <csignal>

#include "app/job/job_race.hpp"
#include "core/error.hpp"

namespace cctune::app {
namespace {

using Pairs = std::pair<std::vector<double>, std::vector<double>>;

// Pairs whose speedups (defaults' step / the candidate's) are `ratios`.
Pairs pairs_of(const std::vector<double>& ratios) {
  Pairs p;
  for (double r : ratios) p.first.push_back(36.0), p.second.push_back(36.0 / r);
  return p;
}

using Kept = std::vector<std::size_t>;

// The 4xH200 socket race: sockets-4x4 led by 0.03 in the medians after 2 pairs each, while the
// runner-up's best pair (2.96) was far above the leader's interval [2.17, 2.62]: both stay for the
// next stage.
TEST(HalvingSurvivors, ACandidateWithinTheNoiseStaysWhilePairsAreFew) {
  const std::vector<Pairs> ranked = {pairs_of({2.62, 2.17}), pairs_of({2.96, 1.77})};
  EXPECT_EQ(halving_survivors(ranked, 2, 4), (Kept{0, 1}));
  EXPECT_EQ(halving_survivors(ranked, 4, 4), Kept{0}) << "from --rounds pairs on, the medians alone cut";
}

TEST(HalvingSurvivors, AClearlySlowerCandidateIsCut) {
  const std::vector<Pairs> ranked = {pairs_of({2.9, 3.1}), pairs_of({1.2, 1.4}), pairs_of({1.0, 1.1}), pairs_of({0.9, 1.0})};
  EXPECT_EQ(halving_survivors(ranked, 2, 6), (Kept{0, 1})) << "half stay, the others' best pairs are below the cut's interval";
  const std::vector<Pairs> close = {pairs_of({2.9, 3.1}), pairs_of({2.8, 3.05}), pairs_of({1.2, 3.2}), pairs_of({1.0, 1.05})};
  EXPECT_EQ(halving_survivors(close, 2, 6), (Kept{0, 1, 2})) << "the third's best pair reaches the second's interval";
  EXPECT_EQ(halving_survivors({pairs_of({1.5, 1.6})}, 2, 6), Kept{0});
}

// Four candidates whose pairs all overlap: the half (2) plus at most one more, ceil(2 x 1.5).
TEST(HalvingSurvivors, ANoisyStageKeepsAtMostOneAndAHalfTimesTheHalf) {
  const std::vector<Pairs> noisy = {pairs_of({3.0, 3.2}), pairs_of({2.8, 3.3}), pairs_of({2.6, 3.4}), pairs_of({2.5, 3.45})};
  EXPECT_EQ(halving_survivors(noisy, 2, 6), (Kept{0, 1, 2}));
  EXPECT_EQ(halving_survivors(noisy, 8, 6), (Kept{0, 1}));
}

// Each candidate below the cut is judged against the last one the half keeps, not against the
// candidate before it: a narrow miss does not end the scan, a wide reading after it still stays.
TEST(HalvingSurvivors, EveryCandidateBelowTheCutIsJudgedAgainstTheLastKept) {
  const std::vector<Pairs> ranked = {pairs_of({3.0, 3.1}), pairs_of({2.9, 3.0}), pairs_of({2.8, 2.9}), pairs_of({2.0, 2.7}),
                                     pairs_of({1.5, 3.0})};
  EXPECT_EQ(halving_survivors(ranked, 2, 6), (Kept{0, 1, 2, 4})) << "2.7 is below the third's 2.8; 3.0 reaches it";
}

// verify --job and tune --job end short the same way: the summary is written with the status,
// a stop answers with its exit code, an error still propagates after its summary.
TEST(RaceOrStop, AStopIsRecordedAndAnsweredAndAnErrorRecordedAndRethrown) {
  std::vector<std::string> statuses;
  std::string said;
  const RaceEnd end{[&](const std::string& status) { statuses.push_back(status); },
                    [&](const std::string& signal) { return said = "stopped by " + signal; }};
  EXPECT_EQ(race_or_stop([] { return std::optional<int>(); }, end), std::nullopt);
  EXPECT_EQ(race_or_stop([] { return std::optional<int>(7); }, end), 7) << "an early end is the race's own";
  EXPECT_TRUE(statuses.empty());
  const std::optional<int> stopped = race_or_stop([]() -> std::optional<int> { throw Interrupted{SIGTERM}; }, end);
  ASSERT_TRUE(stopped);
  EXPECT_EQ(*stopped, exit_code::interrupted_sigterm);
  EXPECT_EQ(statuses, std::vector<std::string>{"interrupted"});
  EXPECT_EQ(said, "stopped by SIGTERM");
  EXPECT_THROW(race_or_stop([]() -> std::optional<int> { throw RuntimeFailure("run 3 failed", "fix it"); }, end), RuntimeFailure);
  EXPECT_EQ(statuses.back(), "failed");
}

}  // namespace
}  // namespace cctune::app
