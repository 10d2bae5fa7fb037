// The typed RankComm helpers over ranks as threads, and JobLayout from gathered hosts.
#include <gtest/gtest.h>

#include "comm/rank_comm.hpp"
#include "core/job_layout.hpp"
#include "support/thread_comm.hpp"
#include "comm/rank_comm_typed.hpp"

namespace cctune {
namespace {

struct Pair {
  int a;
  double b;
};

TEST(RankCommTyped, AllgatherAsKeepsEveryRanksValueInRankOrder) {
  const auto got = testing::run_ranks(3, [](RankComm& c) { return allgather_as(c, Pair{c.rank() * 10, c.rank() + 0.5}); });
  for (const auto& all : got) {
    ASSERT_EQ(all.size(), 3u);
    for (int r = 0; r < 3; ++r) {
      EXPECT_EQ(all[static_cast<std::size_t>(r)].a, r * 10);
      EXPECT_EQ(all[static_cast<std::size_t>(r)].b, r + 0.5);
    }
  }
}

TEST(RankCommTyped, BroadcastAsTakesTheRootsValue) {
  const auto got = testing::run_ranks(4, [](RankComm& c) { return broadcast_as(c, c.rank() == 2, 2); });
  for (bool v : got) EXPECT_TRUE(v);
}

TEST(RankCommTyped, JsonHelpersCarryDocumentsAndReplaceBadUtf8) {
  const auto got = testing::run_ranks(2, [](RankComm& c) {
    // Outside text (a worker's log tail) may end inside a multi-byte character.
    const nlohmann::json mine = {{"rank", c.rank()}, {"text", std::string("cut \xE2\x82", 6)}};
    const auto all = allgather_json(c, mine);
    const nlohmann::json root = broadcast_json(c, c.rank() == 1 ? nlohmann::json{{"from", 1}} : nlohmann::json(), 1);
    return std::make_pair(all, root);
  });
  for (const auto& [all, root] : got) {
    ASSERT_EQ(all.size(), 2u);
    EXPECT_EQ(all[1].at("rank"), 1);
    EXPECT_EQ(all[0].at("text").get<std::string>().substr(0, 4), "cut ");
    EXPECT_EQ(root.at("from"), 1);
  }
}

TEST(JobLayout, NodesLocalRanksAndSortedHosts) {
  const JobLayout l = JobLayout::from_hosts({"b", "a", "b", "c", "a"}, 2);
  EXPECT_EQ(l.nnodes(), 3);
  EXPECT_EQ(l.nodes, (std::vector<std::string>{"b", "a", "c"}));
  EXPECT_EQ(l.node_of_rank, (std::vector<int>{0, 1, 0, 2, 1}));
  EXPECT_EQ(l.local_rank, 1);
  EXPECT_EQ(l.ranks_on_node, 2);
  EXPECT_EQ(l.host(), "b");
  EXPECT_EQ(l.sorted_nodes(), (std::vector<std::string>{"a", "b", "c"}));
}

}  // namespace
}  // namespace cctune
