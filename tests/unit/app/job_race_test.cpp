// tune --job's successive-halving cut (app/job/job_race.hpp): noise protection while the pairs
// are fewer than --rounds, medians alone from then on.
#include <gtest/gtest.h>

#include "app/job/job_race.hpp"

namespace cctune::app {
namespace {

using Pairs = std::pair<std::vector<double>, std::vector<double>>;

// Pairs whose speedups (defaults' step / the candidate's) are `ratios`.
Pairs pairs_of(const std::vector<double>& ratios) {
  Pairs p;
  for (double r : ratios) p.first.push_back(36.0), p.second.push_back(36.0 / r);
  return p;
}

// The 4xH200 socket race: sockets-4x4 led by 0.03 in the medians after 2 pairs each, while the
// runner-up's best pair (2.96) was far above the leader's median: both stay for the next stage.
TEST(HalvingSurvivors, ACandidateWithinTheNoiseStaysWhilePairsAreFew) {
  const std::vector<Pairs> ranked = {pairs_of({2.62, 2.17}), pairs_of({2.96, 1.77})};
  EXPECT_EQ(halving_survivors(ranked, 2, 4), 2u);
  EXPECT_EQ(halving_survivors(ranked, 4, 4), 1u) << "from --rounds pairs on, the medians alone cut";
}

TEST(HalvingSurvivors, AClearlySlowerCandidateIsCut) {
  const std::vector<Pairs> ranked = {pairs_of({2.9, 3.1}), pairs_of({1.2, 1.4}), pairs_of({1.0, 1.1}), pairs_of({0.9, 1.0})};
  EXPECT_EQ(halving_survivors(ranked, 2, 6), 2u) << "half stay, the others' best pairs are below the cut's median";
  const std::vector<Pairs> close = {pairs_of({2.9, 3.1}), pairs_of({2.8, 3.05}), pairs_of({1.2, 3.2}), pairs_of({1.0, 1.05})};
  EXPECT_EQ(halving_survivors(close, 2, 6), 3u) << "the third's best pair reaches the second's median";
  EXPECT_EQ(halving_survivors({pairs_of({1.5, 1.6})}, 2, 6), 1u);
}

}  // namespace
}  // namespace cctune::app
