#pragma once
// Which ranks measure each other, and when: the round-robin "circle" schedule.
// N ranks meet every other rank exactly once in N-1 rounds (N even); no rank appears
// twice in a round, so every pair of a round runs at the same time. With N odd a
// phantom rank N is added: whoever meets it sits the round out.
#include <string>
#include <vector>

namespace cctune::net {

struct RankPair {
  int first = 0;   // the lower rank: it initiates (sends, posts the writes)
  int second = 0;  // the higher rank
  bool operator==(const RankPair&) const = default;
};

struct Round {
  std::vector<RankPair> pairs;
  int idle_rank = -1;  // the rank that sits this round out (odd N), else -1
};

// Rounds of disjoint pairs covering every unordered pair of [0, n) once.
// n < 2 gives no rounds. Throws UsageError for n < 0.
std::vector<Round> circle_schedule(int n);

// The peer of `rank` in `round`, or -1 when it sits out.
int peer_in_round(const Round& round, int rank);

}  // namespace cctune::net
