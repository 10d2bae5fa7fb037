// Per-communicator rule lookup and the profile/runtime compatibility check.
#include <gtest/gtest.h>

#include "tuner/profile/compatibility.hpp"
#include "tuner/profile/rule_table.hpp"

namespace cctune::tuner {
namespace {

Profile fixture() {
  ProfileResult r = load_profile(std::string(CCTUNE_SOURCE_DIR) + "/tests/fixtures/tuner/unit_profile.json");
  EXPECT_TRUE(r.profile) << r.error;
  return r.profile.value_or(Profile{});
}

TEST(RuleTable, KeepsOnlyTheCommunicatorsShape) {
  const Profile p = fixture();
  EXPECT_EQ(RuleTable::for_communicator(p, 8, 1).size(), 4u);
  EXPECT_EQ(RuleTable::for_communicator(p, 16, 2).size(), 1u);
  EXPECT_TRUE(RuleTable::for_communicator(p, 8, 2).empty());
  EXPECT_TRUE(RuleTable::for_communicator(p, 4, 1).empty());
}

TEST(RuleTable, BoundsAreInclusiveAndGapsHaveNoRule) {
  const RuleTable t = RuleTable::for_communicator(fixture(), 8, 1);
  ASSERT_NE(t.find(Collective::AllReduce, 0), nullptr);
  EXPECT_EQ(t.find(Collective::AllReduce, 0)->protocol, Protocol::LL);
  EXPECT_EQ(t.find(Collective::AllReduce, 65535)->protocol, Protocol::LL);
  EXPECT_EQ(t.find(Collective::AllReduce, 65536), nullptr);    // gap 64 KiB .. 1 MiB - 1
  EXPECT_EQ(t.find(Collective::AllReduce, 1048575), nullptr);
  EXPECT_EQ(t.find(Collective::AllReduce, 1048576)->channels, 32);
  EXPECT_EQ(t.find(Collective::AllReduce, 67108863)->channels, 32);
  EXPECT_EQ(t.find(Collective::AllReduce, 67108864)->algorithm, Algorithm::Tree);
  EXPECT_EQ(t.find(Collective::AllReduce, UINT64_MAX)->algorithm, Algorithm::Tree);
  EXPECT_EQ(t.find(Collective::AllGather, 8388607), nullptr);
  EXPECT_EQ(t.find(Collective::AllGather, 8388608)->rule_index, 3u);
  EXPECT_EQ(t.find(Collective::ReduceScatter, 8388608), nullptr);
  EXPECT_EQ(t.find(Collective::SendRecv, 8388608), nullptr);
}

TEST(RuleTable, ManyRulesInAnyOrder) {
  Profile p;
  p.provenance.nccl_version = "2.28.3";
  // 1000 ranges [k*1000, k*1000+499], written in reverse order.
  for (int k = 999; k >= 0; --k)
    p.rules.push_back({Collective::ReduceScatter, 4, 1, std::uint64_t(k) * 1000, std::uint64_t(k) * 1000 + 499,
                       k % 2 ? Algorithm::Ring : Algorithm::Tree, Protocol::Simple, k % 64, 1.0});
  ASSERT_EQ(validate_profile(p), "");
  const RuleTable t = RuleTable::for_communicator(p, 4, 1);
  for (int k = 0; k < 1000; ++k) {
    const RuleChoice* r = t.find(Collective::ReduceScatter, std::uint64_t(k) * 1000 + 250);
    ASSERT_NE(r, nullptr) << k;
    EXPECT_EQ(r->channels, k % 64);
    EXPECT_EQ(t.find(Collective::ReduceScatter, std::uint64_t(k) * 1000 + 500), nullptr) << k;
  }
}

TEST(Compatibility, SameVersionAndFingerprintIsCompatible) {
  ProfileProvenance p{"2.28.3", "abc", "", "", "", "", {}, {}, ""};
  EXPECT_EQ(check_compatibility(p, {22803, "abc"}), "");
  EXPECT_EQ(check_compatibility(p, {0, ""}), "");       // nothing known: nothing to compare
  EXPECT_EQ(check_compatibility(p, {22803, ""}), "");   // fingerprint unknown here
  p.topology_fingerprint.clear();
  EXPECT_EQ(check_compatibility(p, {22803, "def"}), "");  // profile has none
}

TEST(Compatibility, OtherNcclVersionOrTopologyIsNot) {
  const ProfileProvenance p{"2.28.3", "abc", "", "", "", "", {}, {}, ""};
  const std::string version = check_compatibility(p, {22809, "abc"});
  EXPECT_NE(version.find("2.28.3"), std::string::npos) << version;
  EXPECT_NE(version.find("2.28.9"), std::string::npos) << version;
  const std::string topology = check_compatibility(p, {22803, "def"});
  EXPECT_NE(topology.find("fingerprint"), std::string::npos) << topology;
}

}  // namespace
}  // namespace cctune::tuner
