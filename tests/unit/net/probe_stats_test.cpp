#include "net/probe_stats.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <vector>

namespace cctune::net {
namespace {

TEST(BandwidthStats, AverageIsBytesOverLastCompletionMinusFirstPost) {
  // 4 messages of 1 GB; posted at 0,0,0,0; completed at 1,2,3,4 s -> 4 GB / 4 s.
  const std::vector<double> posted{0, 0, 0, 0}, completed{1, 2, 3, 4};
  const auto s = bandwidth_from_timestamps(1'000'000'000, posted, completed);
  EXPECT_DOUBLE_EQ(s.avg_GBps, 1.0);
  EXPECT_DOUBLE_EQ(s.avg_Gbps(), 8.0);
  EXPECT_EQ(s.iterations, 4);
  EXPECT_DOUBLE_EQ(s.time_s, 4.0);
}

TEST(BandwidthStats, PeakIsPerftestsBestWindow) {
  // Message 2 alone took 0.5 s (posted 1.5, done 2.0): the best window, 2 GB/s.
  const std::vector<double> posted{0, 1, 1.5}, completed{1, 2, 2.0};
  const auto s = bandwidth_from_timestamps(1'000'000'000, posted, completed);
  EXPECT_DOUBLE_EQ(s.peak_GBps, 2.0);
  EXPECT_DOUBLE_EQ(s.avg_GBps, 1.5);
}

TEST(BandwidthStats, EmptyInputIsZero) {
  const auto s = bandwidth_from_timestamps(8, {}, {});
  EXPECT_EQ(s.iterations, 0);
  EXPECT_EQ(s.avg_GBps, 0);
}

TEST(LatencyStats, FollowsPerftestIndices) {
  // 1..12 us: drop the two largest (11, 12) -> cnt = 10 kept: 1..10.
  std::vector<double> v;
  for (int i = 12; i >= 1; --i) v.push_back(i);
  const auto s = latency_from_samples(2, v);
  EXPECT_DOUBLE_EQ(s.min_us, 1);
  EXPECT_DOUBLE_EQ(s.typical_us, 5.5);     // median of 1..10
  EXPECT_DOUBLE_EQ(s.avg_us, 5.5);
  EXPECT_DOUBLE_EQ(s.p99_us, 11);          // sorted[ceil(10 * 0.99)] = sorted[10]
  EXPECT_DOUBLE_EQ(s.p999_us, 11);
  EXPECT_DOUBLE_EQ(s.max_us, 11);          // sorted[cnt], as perftest prints it
  EXPECT_EQ(s.iterations, 12);
}

TEST(LatencyStats, PercentilesOnALargeSample) {
  std::vector<double> v;
  for (int i = 1; i <= 10002; ++i) v.push_back(i);
  const auto s = latency_from_samples(2, v);  // kept: 1..10000
  EXPECT_DOUBLE_EQ(s.typical_us, 5000.5);
  EXPECT_DOUBLE_EQ(s.p99_us, 9901);   // sorted[9900]
  EXPECT_DOUBLE_EQ(s.p999_us, 9991);  // sorted[9990]
}

TEST(LatencyStats, JsonHasUnitsInKeys) {
  const std::vector<double> v{1, 2, 3, 4};
  const nlohmann::json j = latency_from_samples(2, v);
  for (const char* k : {"min_us", "typical_us", "avg_us", "p99_us", "p99_9_us", "max_us"}) EXPECT_TRUE(j.contains(k)) << k;
  const nlohmann::json b = bandwidth_from_timestamps(1, std::vector<double>{0}, std::vector<double>{1});
  for (const char* k : {"avg_GBps", "peak_GBps", "avg_Gbps", "peak_Gbps", "size_bytes"}) EXPECT_TRUE(b.contains(k)) << k;
}

}  // namespace
}  // namespace cctune::net
