#pragma once
// Which node pairs the network stage of `cctune diagnose` measures, in rounds of disjoint
// pairs (every pair of a round runs at the same time), so the stage takes O(rounds), not
// O(pairs):
//   all       every pair: N-1 rounds (N even) or N (odd), the probe's circle schedule;
//   ring      node i with node i+1 (and the last with the first): 2 rounds, 3 for odd N;
//   random:K  K rounds of the circle schedule picked with a fixed seed: every node meets K
//             distinct peers (with N odd, a node may sit one of them out);
//   auto      all up to kAutoAllNodes nodes, ring beyond (all on 1024 nodes is 1023 rounds).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "net/pair_schedule.hpp"

namespace cctune::diagnose {

enum class PairMode { Auto, All, Ring, Random };

struct PairSelection {
  PairMode mode = PairMode::Auto;
  int random_rounds = 0;  // K of random:K
};

inline constexpr int kAutoAllNodes = 64;

// "all", "ring", "random:K" (K >= 1) or "auto"; anything else is a UsageError naming the text.
PairSelection parse_pair_selection(std::string_view text);
std::string to_string(const PairSelection& selection);

// The rounds for `nodes` nodes. random:K with K above the circle schedule's round count is a
// UsageError naming both numbers.
std::vector<net::Round> node_pair_rounds(int nodes, const PairSelection& selection, std::uint32_t seed = 1);

}  // namespace cctune::diagnose
