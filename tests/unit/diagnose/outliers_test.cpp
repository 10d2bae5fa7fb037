#include "diagnose/outliers.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace cctune::diagnose {
namespace {

TEST(Outliers, MedianAndMadOfOddAndEvenGroups) {
  const std::vector<double> odd{5, 1, 3};
  EXPECT_DOUBLE_EQ(typical_of(odd).median, 3);
  EXPECT_DOUBLE_EQ(typical_of(odd).mad, 2);
  const std::vector<double> even{4, 1, 3, 2};
  EXPECT_DOUBLE_EQ(typical_of(even).median, 2.5);
  EXPECT_DOUBLE_EQ(typical_of(even).mad, 1);
  EXPECT_EQ(typical_of({}).count, 0u);
}

TEST(Outliers, ShortfallCountsOnlyTheWorseSide) {
  EXPECT_DOUBLE_EQ(shortfall(50, 100, Better::Higher), 0.5);
  EXPECT_DOUBLE_EQ(shortfall(150, 100, Better::Higher), 0);
  EXPECT_DOUBLE_EQ(shortfall(150, 100, Better::Lower), 0.5);
  EXPECT_DOUBLE_EQ(shortfall(50, 100, Better::Lower), 0);
  EXPECT_DOUBLE_EQ(shortfall(50, 0, Better::Higher), 0);
}

TEST(Outliers, OneBadMemberOfATightGroupIsSlow) {
  const std::vector<double> v{100, 100, 100, 100, 50};
  const Typical t = typical_of(v);
  EXPECT_DOUBLE_EQ(t.mad, 0);
  EXPECT_TRUE(is_slow(50, t, Better::Higher, {}));
  EXPECT_FALSE(is_slow(100, t, Better::Higher, {}));
  EXPECT_FALSE(is_slow(150, t, Better::Higher, {}));  // faster is never a suspect
}

TEST(Outliers, ASmallShortfallIsNeverSlowEvenWithNoSpread) {
  const std::vector<double> v{100, 100, 100, 100, 90};
  EXPECT_FALSE(is_slow(90, typical_of(v), Better::Higher, {}));  // 10 % < min_shortfall 15 %
}

TEST(Outliers, AWideGroupNeedsAWiderGap) {
  // Spread: MAD 20, sigma ~30; 60 is 40 below the median of 100: 1.3 sigma, not an outlier.
  const std::vector<double> v{60, 80, 100, 120, 140, 100, 80, 120};
  EXPECT_FALSE(is_slow(60, typical_of(v), Better::Higher, {}));
}

TEST(Outliers, GroupsOfFewerThanThreeAreNotJudged) {
  const std::vector<double> two{100, 10};
  EXPECT_FALSE(is_slow(10, typical_of(two), Better::Higher, {}));
}

}  // namespace
}  // namespace cctune::diagnose
