#pragma once
// The one survivors rule of successive halving, for the sweep's SuccessiveHalving and for
// tune --job's race (docs/TUNING.md "Strategies"): a cut keeps the best `limit`, plus any later
// candidate whose interval reaches the last kept one's, up to ceil(limit x cap). A cut decided by
// less than the noise would otherwise drop the true winner for good; the cap keeps a noisy round
// from keeping everyone. Pure: no I/O, no clocks.
#include <cstddef>
#include <vector>

namespace cctune::tuner::search {

// The survivors' share beyond `limit` that overlapping intervals may add (x 1.5).
inline constexpr double default_overlap_cap = 1.5;

// A candidate's reading as an interval of a cost: smaller is better (a time; a speedup enters
// negated, its interval [-high, -low]).
struct CostInterval {
  double low = 0;
  double high = 0;
};

// The most a cut of `limit` keeps: ceil(limit x cap).
std::size_t most_survivors(std::size_t limit, double cap);

// `best_first` ordered best first by the caller's estimate; returns the indices kept, in order:
// the first `limit`, then each later one whose low end is below the last kept one's high end
// (strictly), while fewer than most_survivors(limit, cap) are kept.
std::vector<std::size_t> survivors(const std::vector<CostInterval>& best_first, std::size_t limit, double cap);

}  // namespace cctune::tuner::search
