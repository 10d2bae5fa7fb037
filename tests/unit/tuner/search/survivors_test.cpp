// The one survivors rule of successive halving (tuner/search/survivors.hpp), shared by the
// sweep's SuccessiveHalving and tune --job's race.
#include "tuner/search/survivors.hpp"

#include <gtest/gtest.h>

namespace cctune::tuner::search {
namespace {

using Kept = std::vector<std::size_t>;

TEST(Survivors, AFieldNoLargerThanTheLimitStaysWhole) {
  EXPECT_EQ(survivors({{1, 2}, {5, 6}}, 2, 1.5), (Kept{0, 1}));
  EXPECT_EQ(survivors({{1, 2}}, 3, 1.5), (Kept{0}));
  EXPECT_EQ(survivors({}, 2, 1.5), Kept{});
  EXPECT_EQ(survivors({{1, 2}}, 0, 1.5), Kept{}) << "a cut of none keeps none";
}

TEST(Survivors, ALaterCandidateStaysWhereItsIntervalReachesTheLastKeptOnes) {
  // Kept: 0 and 1, whose high end is 12. 2 reaches it; 3 starts exactly there (strictly below
  // counts); 4, behind 3 but wider, reaches it again: the scan does not stop at the first miss.
  const std::vector<CostInterval> field = {{8, 9}, {10, 12}, {11, 13}, {12, 13}, {11.5, 20}};
  EXPECT_EQ(survivors(field, 2, 3.0), (Kept{0, 1, 2, 4}));
}

TEST(Survivors, TheCapBoundsWhatOverlapsAdd) {
  const std::vector<CostInterval> noisy = {{1, 9}, {2, 9}, {2, 9}, {3, 9}, {3, 9}, {4, 9}};
  EXPECT_EQ(survivors(noisy, 2, 1.5), (Kept{0, 1, 2})) << "ceil(2 x 1.5) = 3";
  EXPECT_EQ(survivors(noisy, 3, 1.5), (Kept{0, 1, 2, 3, 4})) << "ceil(3 x 1.5) = 5";
  EXPECT_EQ(survivors(noisy, 2, 1.0), (Kept{0, 1})) << "cap 1: the limit alone";
  EXPECT_EQ(most_survivors(3, 1.5), 5u);
  EXPECT_EQ(most_survivors(4, 1.5), 6u);
}

}  // namespace
}  // namespace cctune::tuner::search
