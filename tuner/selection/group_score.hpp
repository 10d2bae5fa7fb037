#pragma once
// How a process-level group is judged (issue 35): by the weighted total time of every size it
// governs against the reference group's NCCL defaults, with an interval; no single size vetoes
// it. Pure; docs/TUNING.md "Choosing the process-level group".
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tuner/selection/candidates.hpp"

namespace cctune::tuner {

// A size where the group's own best is slower than NCCL's default beyond noise: what it costs.
struct GroupCost {
  ShapeKey shape;
  std::uint64_t size_bytes = 0;
  double weight = 0;        // calls per step (grid: 1 per measured size)
  double cost_us = 0;       // weight x (group time - default time): time added per step
  double slowdown = 1;      // group time / default time
};

// The reference group, whose NCCL defaults every group is scored against: the one named
// "default", else the first without settings of its own, else the first. `name_of(g)` names a
// group (results' groups and a sweep's planned groups both have an `env`). `groups` not empty.
template <class Group, class NameOf>
std::size_t reference_index(const std::vector<Group>& groups, NameOf name_of) {
  for (std::size_t i = 0; i < groups.size(); ++i)
    if (name_of(groups[i]) == "default") return i;
  for (std::size_t i = 0; i < groups.size(); ++i)
    if (groups[i].env.empty()) return i;
  return 0;
}

// One size's pair: the reference group's NCCL default and what the group runs there.
struct GroupTerm {
  ShapeKey shape;
  std::uint64_t size_bytes = 0;
  double weight = 0;
  Timing defaults;
  Timing group;
};

struct GroupScore {
  std::string group;
  std::map<std::string, std::string> env;
  bool eligible = false;
  std::string reason;          // why not eligible (a size the reference measured is missing)
  double geomean_speedup = 0;  // over the reference group's NCCL defaults, every size alike
  std::size_t sizes = 0;
  // The weighted total time of the sizes it governs: the job's calls per step, or for a grid
  // one call per measured size (TuneOutputs::weights_note). What the group is chosen by.
  double job_speedup = 0;                    // total under NCCL defaults / total with this group
  double speedup_low = 0, speedup_high = 0;  // its interval (total_of below)
  bool job_beyond_noise = false;             // speedup_low >= 1 + min_gain
  double default_us = 0, group_us = 0;       // the weighted totals
  std::vector<GroupCost> costs;              // sizes where it is slower beyond noise: printed, never a veto
  // `sweep --overlap`: every size of both sides was measured beside compute, so the totals above
  // are collective + compute (the job's cost); collective_speedup is the collectives' alone.
  bool overlap = false;
  double collective_speedup = 0;
  // Each size's pair as weighed: where the interval's width lies (the race measures those
  // shapes again, tuner/search/race.hpp).
  std::vector<GroupTerm> terms;
};

struct WeightedTotal {
  double default_us = 0, group_us = 0;
  double speedup = 0;                   // default_us / group_us
  double speedup_low = 0, speedup_high = 0;  // the interval (see total_of)
  std::vector<GroupCost> costs;         // sizes slower beyond noise, by shape then size
};

// Sums weight x time each way. The interval: every point's time has the sweep's distribution-
// free ~95 % interval for its median (order statistics, rel_noise); where all of them hold, the
// totals lie within sum weight x (time -/+ half-width), so the speedup lies within
// [default_low / group_high, default_high / group_low]. Conservative (it assumes the errors
// conspire), distribution-free, and paired (both sides at the same sizes and weights).
WeightedTotal total_of(const std::vector<GroupTerm>& terms, double min_gain, double min_gain_us);

// The weighted speedup of the collectives alone (compute_us left out): what a sweep without
// --overlap would have scored. 0 when a total is 0.
double collective_speedup_of(const std::vector<GroupTerm>& terms);
// True when every term's both sides carry overlap figures (GroupScore::overlap).
bool measured_beside_compute(const std::vector<GroupTerm>& terms);

}  // namespace cctune::tuner
