#include "net/pair_schedule.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace cctune::net {

std::vector<Round> circle_schedule(int n) {
  if (n < 0) throw UsageError("rank count " + std::to_string(n) + " is negative");
  if (n < 2) return {};
  // The circle method: fix position 0, rotate the other m-1 positions one step per
  // round, and pair position i with position m-1-i. With m even that is m-1 rounds.
  const int m = n % 2 == 0 ? n : n + 1;  // m - 1 is the phantom rank when n is odd
  std::vector<int> ring(static_cast<std::size_t>(m));
  for (int i = 0; i < m; ++i) ring[static_cast<std::size_t>(i)] = i;

  std::vector<Round> rounds;
  rounds.reserve(static_cast<std::size_t>(m - 1));
  for (int r = 0; r < m - 1; ++r) {
    Round round;
    for (int i = 0; i < m / 2; ++i) {
      const int a = ring[static_cast<std::size_t>(i)];
      const int b = ring[static_cast<std::size_t>(m - 1 - i)];
      if (a >= n || b >= n) {
        round.idle_rank = a >= n ? b : a;
        continue;
      }
      round.pairs.push_back({std::min(a, b), std::max(a, b)});
    }
    std::sort(round.pairs.begin(), round.pairs.end(),
              [](const RankPair& x, const RankPair& y) { return x.first < y.first; });
    rounds.push_back(std::move(round));
    // Rotate positions 1..m-1 by one (the last one moves to position 1).
    std::rotate(ring.begin() + 1, ring.end() - 1, ring.end());
  }
  return rounds;
}

int peer_in_round(const Round& round, int rank) {
  for (const auto& p : round.pairs) {
    if (p.first == rank) return p.second;
    if (p.second == rank) return p.first;
  }
  return -1;
}

}  // namespace cctune::net
