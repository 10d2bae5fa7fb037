#include "net/pair_schedule.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "core/error.hpp"

namespace cctune::net {
namespace {

// Checks the three promises of the schedule for one n.
void check_schedule(int n) {
  const auto rounds = circle_schedule(n);
  const int expected_rounds = n < 2 ? 0 : (n % 2 == 0 ? n - 1 : n);
  ASSERT_EQ(static_cast<int>(rounds.size()), expected_rounds) << "n=" << n;
  std::vector<int> met(static_cast<std::size_t>(n) * static_cast<std::size_t>(n), 0);
  std::vector<int> idle_count(static_cast<std::size_t>(n), 0);
  for (const auto& round : rounds) {
    std::vector<char> seen(static_cast<std::size_t>(n), 0);
    for (const auto& p : round.pairs) {
      ASSERT_LT(p.first, p.second);
      ASSERT_GE(p.first, 0);
      ASSERT_LT(p.second, n);
      ASSERT_FALSE(seen[static_cast<std::size_t>(p.first)]) << "rank twice in a round, n=" << n;
      ASSERT_FALSE(seen[static_cast<std::size_t>(p.second)]) << "rank twice in a round, n=" << n;
      seen[static_cast<std::size_t>(p.first)] = seen[static_cast<std::size_t>(p.second)] = 1;
      ++met[static_cast<std::size_t>(p.first) * static_cast<std::size_t>(n) + static_cast<std::size_t>(p.second)];
    }
    if (n % 2 == 0) {
      ASSERT_EQ(round.idle_rank, -1);
      ASSERT_EQ(static_cast<int>(round.pairs.size()), n / 2);
    } else {
      ASSERT_GE(round.idle_rank, 0);
      ASSERT_FALSE(seen[static_cast<std::size_t>(round.idle_rank)]);
      ++idle_count[static_cast<std::size_t>(round.idle_rank)];
      ASSERT_EQ(static_cast<int>(round.pairs.size()), (n - 1) / 2);
    }
  }
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b)
      ASSERT_EQ(met[static_cast<std::size_t>(a) * static_cast<std::size_t>(n) + static_cast<std::size_t>(b)], 1)
          << "pair (" << a << "," << b << ") n=" << n;
  if (n % 2 == 1 && n > 1) {
    for (int r = 0; r < n; ++r) ASSERT_EQ(idle_count[static_cast<std::size_t>(r)], 1) << "n=" << n;
  }
}

TEST(PairSchedule, EveryPairOnceNoRankTwiceUpTo1024) {
  for (int n = 0; n <= 1024; ++n) {
    check_schedule(n);
    if (HasFatalFailure()) return;
  }
}

TEST(PairSchedule, SmallCasesAreExact) {
  EXPECT_TRUE(circle_schedule(1).empty());
  const auto two = circle_schedule(2);
  ASSERT_EQ(two.size(), 1u);
  EXPECT_EQ(two[0].pairs, (std::vector<RankPair>{{0, 1}}));
  const auto three = circle_schedule(3);
  ASSERT_EQ(three.size(), 3u);
  for (const auto& r : three) EXPECT_EQ(r.pairs.size(), 1u);
}

TEST(PairSchedule, PeerLookup) {
  const auto rounds = circle_schedule(4);
  for (const auto& r : rounds)
    for (int rank = 0; rank < 4; ++rank) {
      const int peer = peer_in_round(r, rank);
      ASSERT_NE(peer, -1);
      EXPECT_EQ(peer_in_round(r, peer), rank);
    }
  EXPECT_EQ(peer_in_round(circle_schedule(3)[0], circle_schedule(3)[0].idle_rank), -1);
}

TEST(PairSchedule, NegativeIsUsageError) { EXPECT_THROW(circle_schedule(-1), UsageError); }

}  // namespace
}  // namespace cctune::net
