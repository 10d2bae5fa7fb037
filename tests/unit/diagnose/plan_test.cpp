#include "diagnose/plan.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <utility>

#include "core/error.hpp"

namespace cctune::diagnose {
namespace {

// Every pair appears once, and no node twice in one round.
std::set<std::pair<int, int>> check_rounds(const std::vector<net::Round>& rounds, int nodes) {
  std::set<std::pair<int, int>> seen;
  for (const net::Round& r : rounds) {
    std::set<int> busy;
    for (const net::RankPair& p : r.pairs) {
      EXPECT_LT(p.first, p.second);
      EXPECT_GE(p.first, 0);
      EXPECT_LT(p.second, nodes);
      EXPECT_TRUE(busy.insert(p.first).second) << "node " << p.first << " twice in a round";
      EXPECT_TRUE(busy.insert(p.second).second) << "node " << p.second << " twice in a round";
      EXPECT_TRUE(seen.insert({p.first, p.second}).second) << "pair measured twice";
    }
  }
  return seen;
}

TEST(PairSelection, ParsesEveryFormAndRefusesOthersInOneLine) {
  EXPECT_EQ(parse_pair_selection("ring").mode, PairMode::Ring);
  EXPECT_EQ(parse_pair_selection("all").mode, PairMode::All);
  EXPECT_EQ(parse_pair_selection("auto").mode, PairMode::Auto);
  EXPECT_EQ(parse_pair_selection("random:3").random_rounds, 3);
  EXPECT_EQ(to_string(parse_pair_selection("random:3")), "random:3");
  for (const char* bad : {"", "rings", "random", "random:", "random:0", "random:-2", "random:3x", "random:99999999999"}) {
    try {
      parse_pair_selection(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("--pairs"), std::string::npos) << e.what();
      EXPECT_NE(e.fix().find("random:K"), std::string::npos);
    }
  }
}

TEST(PairSelection, RingIsTwoRoundsForEvenAndThreeForOddNodeCounts) {
  EXPECT_TRUE(node_pair_rounds(1, parse_pair_selection("ring")).empty());
  EXPECT_EQ(check_rounds(node_pair_rounds(2, parse_pair_selection("ring")), 2).size(), 1u);
  for (int n : {3, 4, 5, 8, 9, 1024}) {
    const auto rounds = node_pair_rounds(n, parse_pair_selection("ring"));
    EXPECT_EQ(rounds.size(), n % 2 == 0 ? 2u : 3u) << n;
    const auto pairs = check_rounds(rounds, n);
    EXPECT_EQ(pairs.size(), static_cast<std::size_t>(n)) << n;  // every node has two ring neighbours
    for (int i = 0; i < n; ++i) EXPECT_TRUE(pairs.count({std::min(i, (i + 1) % n), std::max(i, (i + 1) % n)}));
  }
}

TEST(PairSelection, AllCoversEveryPairInLinearRounds) {
  for (int n : {2, 3, 4, 7, 16}) {
    const auto rounds = node_pair_rounds(n, parse_pair_selection("all"));
    EXPECT_EQ(rounds.size(), static_cast<std::size_t>(n % 2 == 0 ? n - 1 : n)) << n;
    EXPECT_EQ(check_rounds(rounds, n).size(), static_cast<std::size_t>(n * (n - 1) / 2)) << n;
  }
  EXPECT_EQ(node_pair_rounds(64, {}).size(), 63u);   // auto: all up to 64 nodes
  EXPECT_EQ(node_pair_rounds(65, {}).size(), 3u);    // then ring
}

TEST(PairSelection, RandomGivesEveryNodeKDistinctPeersReproducibly) {
  const auto rounds = node_pair_rounds(32, parse_pair_selection("random:4"), 7);
  ASSERT_EQ(rounds.size(), 4u);
  check_rounds(rounds, 32);
  for (const net::Round& r : rounds) EXPECT_EQ(r.pairs.size(), 16u);
  const auto again = node_pair_rounds(32, parse_pair_selection("random:4"), 7);
  for (std::size_t i = 0; i < rounds.size(); ++i) EXPECT_EQ(rounds[i].pairs, again[i].pairs);
  EXPECT_THROW(node_pair_rounds(4, parse_pair_selection("random:4")), UsageError);  // 4 nodes have 3 rounds
}

TEST(DiagnosePlan, ALargeClusterPlansInLinearRoundsAndQuickly) {
  const auto t0 = std::chrono::steady_clock::now();
  PlanInputs in;
  in.nodes = 1024;
  in.gpus_per_node = 8;
  in.pairs = parse_pair_selection("all");
  const DiagnosePlan plan = plan_diagnosis(in);
  const std::string text = format_plan(plan);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(s, 1.0);  // the command's promise: --dry-run --nodes 1024 --gpus 8 in under a second
  EXPECT_EQ(plan.pair_rounds.size(), 1023u);
  ASSERT_EQ(plan.stages.size(), 4u);
  EXPECT_EQ(plan.stages[1].rounds, 1023);
  EXPECT_NE(text.find("1024 node(s) x 8 GPU(s), 8192 rank(s); pairs all"), std::string::npos) << text;
  EXPECT_NE(text.find("# estimate: "), std::string::npos) << text;
  in.pairs = parse_pair_selection("ring");
  EXPECT_LT(plan_diagnosis(in).total_s, plan.total_s / 100);
}

TEST(DiagnosePlan, OneNodeSaysWhichStagesItSkipsAndWhy) {
  PlanInputs in;
  in.nodes = 1;
  in.gpus_per_node = 8;
  const DiagnosePlan plan = plan_diagnosis(in);
  ASSERT_EQ(plan.stages.size(), 4u);
  EXPECT_EQ(plan.stages[0].rounds, 1);
  for (std::size_t i = 1; i < 4; ++i) {
    EXPECT_EQ(plan.stages[i].rounds, 0);
    EXPECT_NE(plan.stages[i].skipped_why.find("one node"), std::string::npos);
  }
  EXPECT_NE(format_plan(plan).find("skipped: one node: the network needs two or more"), std::string::npos);
  in.nodes = 4;
  in.gpus_per_node = 1;
  EXPECT_NE(plan_diagnosis(in).stages[0].skipped_why.find("one GPU per node"), std::string::npos);
  in.nodes = 0;
  EXPECT_THROW(plan_diagnosis(in), UsageError);
}

}  // namespace
}  // namespace cctune::diagnose
