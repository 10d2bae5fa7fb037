// The production watch alone (tuner/plugin/production_watch.hpp) and the profile's measured
// busbw it reads (tuner/profile: measured_busbw_GBps, written and read back).
#include <gtest/gtest.h>

#include "tuner/plugin/production_watch.hpp"

namespace cctune::tuner {
namespace {

Profile profile_with_measurement() {
  Profile p;
  p.provenance.nccl_version = "2.28.9";
  ProfileRule r{Collective::AllReduce, 8, 1, 1048576, 67108863, Algorithm::Ring, Protocol::Simple, 32, 1.1, {}};
  r.measured_busbw_GBps = {{1048576, 60.0}, {4194304, 100.0}};
  p.rules.push_back(r);
  return p;
}

// An 8-rank allreduce of `bytes` whose calls took `us` each.
workload::Communicator comm_with(std::uint64_t bytes, std::vector<std::pair<double, std::uint64_t>> times) {
  workload::Communicator c{"0xabc", 8, 1, {3}, {}, 0, {}};
  workload::CallStats s;
  s.shape.collective = Collective::AllReduce;
  s.shape.bytes = bytes;
  s.shape.count = bytes / 4;
  for (const auto& [us, n] : times) {
    for (std::uint64_t i = 0; i < n; ++i) s.durations.add(us);
    s.durations.histogram[workload::duration_bucket(us)] += n;
    s.calls += n;
  }
  c.calls.push_back(s);
  return c;
}

// The time of one 4 MiB allreduce on 8 ranks at `busbw` GB/s.
double us_at(double busbw) { return 4194304.0 / (busbw / (2.0 * 7 / 8) * 1e3); }

TEST(ProductionWatch, ReportsAShapeWellBelowTheSweep) {
  const auto findings = watch_communicator(comm_with(4194304, {{us_at(25), 20}}), profile_with_measurement());
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].rank, 3);
  EXPECT_EQ(findings[0].bytes, 4194304u);
  EXPECT_EQ(findings[0].profile_bytes, 4194304u);
  EXPECT_DOUBLE_EQ(findings[0].profile_busbw_GBps, 100.0);
  // The histogram's resolution (four buckets per octave) bounds how exact the live figure is.
  EXPECT_NEAR(findings[0].live_busbw_GBps, 25.0, 25.0 * 0.1);
  EXPECT_NEAR(findings[0].shortfall, 0.75, 0.03);
}

TEST(ProductionWatch, LeavesHealthyNoisyAndUnmeasuredShapesAlone) {
  const Profile p = profile_with_measurement();
  EXPECT_TRUE(watch_communicator(comm_with(4194304, {{us_at(95), 20}}), p).empty());   // 5 % below: noise
  EXPECT_TRUE(watch_communicator(comm_with(4194304, {{us_at(25), 2}}), p).empty());    // too few calls to judge
  EXPECT_TRUE(watch_communicator(comm_with(33554432, {{8 * us_at(25), 20}}), p).empty());  // no measurement within 2x
  // A job whose own calls spread as widely as the shortfall: not an outlier by the rule.
  EXPECT_TRUE(watch_communicator(comm_with(4194304, {{us_at(200), 10}, {us_at(12), 10}}), p).empty());
  Profile unmeasured = p;
  unmeasured.rules[0].measured_busbw_GBps.clear();
  EXPECT_TRUE(watch_communicator(comm_with(4194304, {{us_at(25), 20}}), unmeasured).empty());
  workload::Communicator other = comm_with(4194304, {{us_at(25), 20}});
  other.nranks = 16;  // the profile has no rules for this communicator's shape
  EXPECT_TRUE(watch_communicator(other, p).empty());
}

TEST(ProductionWatch, ProfileCarriesMeasuredBusbwCompatibly) {
  const Profile p = profile_with_measurement();
  const ProfileResult back = parse_profile(format_profile(p));
  ASSERT_TRUE(back.profile) << back.error;
  EXPECT_EQ(*back.profile, p);
  std::string text = format_profile(p);
  ASSERT_NE(text.find("\"measured_busbw_GBps\""), std::string::npos);
  const std::string bad = std::string(text).replace(text.find("\"measured_busbw_GBps\""), 21, "\"measured_busbw_GBps\": [[1, -2]], \"x\"");
  const ProfileResult refused = parse_profile(bad);
  EXPECT_FALSE(refused.profile);
  EXPECT_NE(refused.error.find("measured_busbw_GBps"), std::string::npos) << refused.error;
}

}  // namespace
}  // namespace cctune::tuner
