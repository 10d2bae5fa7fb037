#pragma once
// Undecided is an answer (issue 46): the groups whose weighted speedup reads as a gain while its
// interval still reaches down to no gain. tune keeps NCCL's defaults where the noise allows no
// decision, and says so with the contenders, their intervals and what would settle them: each
// point measured for longer (its sweep stopped them at the time cap after few iterations), or
// the job itself (`tune --job`). On a one-box cluster at 25 Gb/s (2 x H200, a DDP job's 67 MB
// all-reduce, --max-time 0.1: 3 to 8 iterations a point) sockets-8x8 read x1.312 [0.653, 2.072]
// and even NCCL's defaults against themselves [0.363, 2.752]. Pure.
#include <string>
#include <vector>

#include "core/results.hpp"
#include "tuner/selection/group_score.hpp"

namespace cctune::tuner {

struct UndecidedGroup {
  std::string group;
  double speedup = 0, low = 0, high = 0;  // its weighted collective speedup and interval
};

struct UndecidedRace {
  std::vector<UndecidedGroup> contenders;  // best first
  // Over the reference's and the contenders' measured points: the fewest iterations one had,
  // and whether any stopped at its time cap (--max-time) rather than on its noise target.
  long fewest_iterations = 0;
  bool time_capped = false;
};

// The eligible groups other than `chosen` that read at least 1 + min_gain faster with a lower
// end below it. `reference`: the group NCCL's defaults are measured in.
UndecidedRace undecided_race(const Results& results, const std::vector<GroupScore>& groups, const std::string& chosen,
                             const std::string& reference, double min_gain);

}  // namespace cctune::tuner
