// Groups in the workload model: what a rank issued inside one ncclGroupStart/End. Built,
// merged across ranks (collective-only groups must agree, p2p groups add up), bounded, and
// kept through the JSON round trip; a file without groups reads as before.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "workload/workload_json.hpp"

namespace cctune::workload {
namespace {

CallShape allreduce(std::uint64_t count) {
  CallShape s;
  s.op = ReduceOp::Sum;
  s.count = count;
  s.bytes = count * 4;
  return s;
}

CallShape p2p(CallKind kind, std::uint64_t count) {
  CallShape s;
  s.kind = kind;
  s.collective = Collective::SendRecv;
  s.count = count;
  s.bytes = count * 4;
  return s;
}

Workload two_ranks(std::uint64_t rank1_groups) {
  WorkloadBuilder b;
  const std::vector<CallShape> coalesced = {allreduce(131072), allreduce(32768), allreduce(8192)};
  const std::vector<CallShape> exchange = {p2p(CallKind::Send, 16384), p2p(CallKind::Recv, 16384)};
  for (int rank = 0; rank < 2; ++rank) {
    const std::uint64_t issues = rank == 0 ? 4 : rank1_groups;
    for (std::uint64_t i = 0; i < issues; ++i) {
      for (const CallShape& s : coalesced) b.add_call("0x1", 2, 1, rank, s);
      b.add_group("0x1", 2, 1, rank, coalesced);
      for (const CallShape& s : exchange) b.add_call("0x1", 2, 1, rank, s);
      b.add_group("0x1", 2, 1, rank, exchange);
      b.add_call("0x1", 2, 1, rank, allreduce(65536));
      b.add_group("0x1", 2, 1, rank, {allreduce(65536)});  // one call: no group
    }
  }
  return b.finish("nccl-profiler", {});
}

TEST(WorkloadGroups, BuiltAndMergedAcrossRanks) {
  const Workload w = two_ranks(4);
  const Communicator& c = w.communicators.at(0);
  ASSERT_EQ(c.groups.size(), 2u);
  // Sorted by members: the collective group first (CallKind::Collective sorts before Send).
  EXPECT_EQ(c.groups[0].members.size(), 3u);
  EXPECT_EQ(c.groups[0].calls, 4u);  // by each rank
  EXPECT_FALSE(c.groups[0].has_p2p());
  EXPECT_EQ(c.groups[1].calls, 8u);  // sends and receives add up over ranks
  EXPECT_TRUE(c.groups[1].has_p2p());
  EXPECT_EQ(c.groups[0].members[0].count, 131072u);  // issue order kept
  EXPECT_EQ(c.groups[0].members[2].count, 8192u);
}

TEST(WorkloadGroups, RanksThatDisagreeOnACollectiveGroupAreRefused) {
  try {
    two_ranks(3);
    FAIL();
  } catch (const UsageError& e) {
    // The shapes' counts disagree first; either way the message names the communicator.
    EXPECT_NE(std::string(e.what()).find("0x1"), std::string::npos) << e.what();
  }
  Workload a = two_ranks(4), b = a;
  a.communicators[0].ranks = {0};
  b.communicators[0].ranks = {1};
  b.communicators[0].groups[0].calls = 5;
  try {
    merge({a, b});
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("a group of 3 calls"), std::string::npos) << e.what();
  }
}

TEST(WorkloadGroups, JsonRoundTripAndRefusals) {
  Workload w = two_ranks(4);
  w.steps = 4;
  w.communicators[0].groups_not_recorded = 2;
  const nlohmann::json j = to_json(w);
  EXPECT_DOUBLE_EQ(j["communicators"][0]["groups"][0]["calls_per_step"].get<double>(), 1.0);
  EXPECT_EQ(workload_from_json(nlohmann::json::parse(j.dump())), w);

  nlohmann::json one = j;
  one["communicators"][0]["groups"][0]["members"].erase(1);
  one["communicators"][0]["groups"][0]["members"].erase(1);
  try {
    workload_from_json(one);
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("communicators[0].groups[0].members"), std::string::npos) << e.what();
  }
  nlohmann::json bad_member = j;
  bad_member["communicators"][0]["groups"][1]["members"][0]["kind"] = "broadcastish";
  EXPECT_THROW(workload_from_json(bad_member), UsageError);

  nlohmann::json none = j;
  none["communicators"][0].erase("groups");
  none["communicators"][0].erase("groups_not_recorded");
  EXPECT_TRUE(workload_from_json(none).communicators[0].groups.empty());
  EXPECT_FALSE(to_json(workload_from_json(none))["communicators"][0].contains("groups"));
}

TEST(WorkloadGroups, OversizedGroupsAreCountedNotKept) {
  WorkloadBuilder b;
  std::vector<CallShape> big;
  for (std::uint64_t i = 1; i <= max_group_members + 1; ++i) big.push_back(allreduce(i));
  for (const CallShape& s : big) b.add_call("0x1", 2, 1, 0, s);
  b.add_group("0x1", 2, 1, 0, big);
  const Communicator c = b.finish("nccl-profiler", {}).communicators.at(0);
  EXPECT_TRUE(c.groups.empty());
  EXPECT_EQ(c.groups_not_recorded, 1u);
  EXPECT_EQ(c.calls.size(), max_group_members + 1);
}

// Distinct groups' members count against the capture's bound, so groups cannot hold more call
// shapes than a capture may.
TEST(WorkloadGroups, DistinctGroupMembersAreBounded) {
  WorkloadBuilder b;
  const std::size_t per_group = max_group_members;
  std::vector<CallShape> members(per_group);
  std::uint64_t first = 1;
  const auto next_group = [&] {
    for (std::size_t i = 0; i < per_group; ++i) members[i] = allreduce(first + i);
    first += per_group;
    b.add_group("0x1", 2, 1, 0, members);
  };
  for (std::size_t g = 0; g < max_workload_shapes / per_group; ++g) next_group();
  EXPECT_THROW(next_group(), UsageError);
}

}  // namespace
}  // namespace cctune::workload
