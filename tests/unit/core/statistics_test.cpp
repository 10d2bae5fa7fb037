#include <gtest/gtest.h>

#include <cmath>

#include "core/statistics.hpp"

using namespace cctune;

TEST(Statistics, HandComputedValues) {
  const std::vector<double> v{4, 1, 3, 2, 5};
  EXPECT_DOUBLE_EQ(mean(v), 3.0);
  EXPECT_DOUBLE_EQ(median(v), 3.0);
  EXPECT_DOUBLE_EQ(stddev(v), std::sqrt(2.5));
  const std::vector<double> even{1, 2, 3, 4};
  EXPECT_DOUBLE_EQ(median(even), 2.5);
  EXPECT_DOUBLE_EQ(quantile(even, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(quantile(even, 1.0), 4.0);
}

TEST(Statistics, P99InterpolatesLikeNumpy) {
  std::vector<double> v;
  for (int i = 1; i <= 101; ++i) v.push_back(i);
  EXPECT_DOUBLE_EQ(quantile(v, 0.99), 100.0);
  std::vector<double> w;
  for (int i = 0; i < 10; ++i) w.push_back(i);
  EXPECT_NEAR(quantile(w, 0.99), 8.91, 1e-12);  // numpy.percentile(range(10), 99)
}

TEST(Statistics, SummaryAndEdgeCases) {
  const std::vector<double> v{10, 10, 10, 10};
  const Summary s = summarize(v);
  EXPECT_EQ(s.count, 4);
  EXPECT_DOUBLE_EQ(s.min, 10);
  EXPECT_DOUBLE_EQ(s.max, 10);
  EXPECT_DOUBLE_EQ(s.cv, 0);
  EXPECT_EQ(summarize(std::vector<double>{}).count, 0);
  EXPECT_DOUBLE_EQ(stddev(std::vector<double>{5}), 0);
}

TEST(Statistics, MedianNoiseShrinksWithSamples) {
  std::vector<double> few{10, 11, 9, 10.5, 9.5, 10.2, 9.8};
  std::vector<double> many;
  for (int i = 0; i < 70; ++i) many.push_back(few[i % few.size()]);
  EXPECT_TRUE(std::isinf(median_relative_noise(std::vector<double>{1, 2})));
  EXPECT_GT(median_relative_noise(few), median_relative_noise(many));
  EXPECT_DOUBLE_EQ(median_relative_noise(std::vector<double>(50, 3.0)), 0.0);
}
