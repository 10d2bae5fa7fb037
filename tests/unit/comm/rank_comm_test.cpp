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

// A value type with its codec beside it, as JobPoint or TransportFacts have.
struct Named {
  std::string name;
  int n = 0;
  bool operator==(const Named&) const = default;
};
void to_json(nlohmann::json& j, const Named& v) { j = {{"name", v.name}, {"n", v.n}}; }
void from_json(const nlohmann::json& j, Named& v) {
  v.name = j.at("name").get<std::string>();
  v.n = j.at("n").get<int>();
}

TEST(RankCommTyped, BroadcastAsCarriesStringsAndTypesThroughTheirCodec) {
  const auto got = testing::run_ranks(3, [](RankComm& c) {
    const std::string text = c.rank() == 1 ? std::string("a workload's text\n\xff") : std::string("not sent");
    const std::vector<Named> mine = c.rank() == 1 ? std::vector<Named>{{"x", 1}, {"y", 2}} : std::vector<Named>{{"ignored", 9}};
    return std::make_pair(broadcast_as(c, text, 1), broadcast_as(c, mine, 1));
  });
  for (const auto& [text, named] : got) {
    EXPECT_EQ(text, std::string("a workload's text\n\xff"));  // a string travels as its bytes
    EXPECT_EQ(named, (std::vector<Named>{{"x", 1}, {"y", 2}}));
  }
}

TEST(RankCommTyped, AllgatherAsCarriesTypesThroughTheirCodec) {
  const auto got = testing::run_ranks(3, [](RankComm& c) { return allgather_as(c, Named{"rank " + std::to_string(c.rank()), c.rank()}); });
  for (const auto& all : got) EXPECT_EQ(all, (std::vector<Named>{{"rank 0", 0}, {"rank 1", 1}, {"rank 2", 2}}));
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
