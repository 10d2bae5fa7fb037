#include "diagnose/pair_selection.hpp"

#include <algorithm>
#include <charconv>
#include <random>

#include "core/error.hpp"

namespace cctune::diagnose {
namespace {

const char* const kPairsFix = "use --pairs all, ring, random:K (K >= 1) or auto";

std::vector<net::Round> ring_rounds(int nodes) {
  if (nodes < 2) return {};
  if (nodes == 2) return {net::Round{{{0, 1}}, -1}};
  // Edge i joins node i and i+1 (mod N). Even edges share no node, nor do odd ones; with N
  // odd the closing edge (N-1, 0) meets both groups and gets a round of its own.
  std::vector<net::Round> rounds(nodes % 2 == 0 ? 2 : 3);
  for (int i = 0; i < nodes; ++i) {
    const int a = i, b = (i + 1) % nodes;
    const std::size_t round = (nodes % 2 == 1 && i == nodes - 1) ? 2 : static_cast<std::size_t>(i % 2);
    rounds[round].pairs.push_back({std::min(a, b), std::max(a, b)});
  }
  return rounds;
}

}  // namespace

PairSelection parse_pair_selection(std::string_view text) {
  if (text == "auto") return {PairMode::Auto, 0};
  if (text == "all") return {PairMode::All, 0};
  if (text == "ring") return {PairMode::Ring, 0};
  constexpr std::string_view prefix = "random:";
  if (text.substr(0, prefix.size()) == prefix) {
    const std::string_view digits = text.substr(prefix.size());
    int k = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), k);
    if (ec == std::errc() && end == digits.data() + digits.size() && k >= 1) return {PairMode::Random, k};
  }
  throw UsageError("--pairs '" + std::string(text) + "' is not a pair selection", kPairsFix);
}

std::string to_string(const PairSelection& selection) {
  switch (selection.mode) {
    case PairMode::Auto: return "auto";
    case PairMode::All: return "all";
    case PairMode::Ring: return "ring";
    case PairMode::Random: return "random:" + std::to_string(selection.random_rounds);
  }
  return "?";
}

std::vector<net::Round> node_pair_rounds(int nodes, const PairSelection& selection, std::uint32_t seed) {
  PairMode mode = selection.mode;
  if (mode == PairMode::Auto) mode = nodes <= kAutoAllNodes ? PairMode::All : PairMode::Ring;
  if (mode == PairMode::Ring) return ring_rounds(nodes);
  std::vector<net::Round> rounds = net::circle_schedule(nodes);
  if (mode == PairMode::All) return rounds;
  const int k = selection.random_rounds;
  if (k > static_cast<int>(rounds.size()))
    throw UsageError("--pairs random:" + std::to_string(k) + " asks for more rounds than " + std::to_string(nodes) +
                         " nodes have (" + std::to_string(rounds.size()) + ")",
                     "use random:K with K <= " + std::to_string(rounds.size()) + ", or --pairs all");
  std::mt19937 rng(seed);
  std::shuffle(rounds.begin(), rounds.end(), rng);
  rounds.resize(static_cast<std::size_t>(k));
  return rounds;
}

}  // namespace cctune::diagnose
