#pragma once
// `cctune tune` for one job (issue #25): the job's calls per step at each measured size, and the
// collective time per step they add up to under NCCL's defaults and under the profile. Pure;
// docs/TUNING.md "Tuning for a workload".
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/job_point.hpp"
#include "tuner/selection/candidates.hpp"

namespace cctune::tuner {

// Per collective the data type of the job's most frequent calls (what tune compares).
// `weights`: how often the job calls each shape at each size (core/job_point.hpp), per training
// step or per capture when the capture did not know its steps, as `sweep --workload` records it.
std::map<Collective, DType> job_dtypes(const std::vector<JobPoint>& weights);

using SizeKey = std::pair<ShapeKey, std::uint64_t>;

// Each weight lands on the measured size of its shape nearest in log distance (a sweep of the
// workload measures exactly its sizes; a grid sweep the nearest ones, which the notes say).
// Weights of shapes never measured are left out, with a note.
struct MappedWeights {
  std::map<SizeKey, double> calls_per_step;
  std::vector<std::string> notes;
};
MappedWeights map_job_weights(const std::vector<JobPoint>& weights, const std::set<SizeKey>& measured);

// One size's share of the job: its calls, and the time of one call each way.
struct JobTerm {
  ShapeKey shape;
  double calls_per_step = 0;
  Timing defaults;  // NCCL's default in the reference group
  Timing profile;   // what the profile runs there (the chosen group's choice)
};

// The collective time per step of one communicator shape and collective.
struct JobTime {
  ShapeKey shape;
  double default_us = 0;
  double profile_us = 0;
  double halfwidth_us = 0;  // of default_us - profile_us: the terms' half-widths x calls, root-sum-square
  std::size_t sizes = 0;
};
std::vector<JobTime> sum_job_time(const std::vector<JobTerm>& terms);

// "allreduce 2 ranks x 2 nodes: collective time per step: NCCL defaults 1.234 ms -> profile
// 1.100 ms (-10.9 % +/- 1.2 %)"; "per capture" in place of "per step" when steps are unknown.
std::string format_job_time(const JobTime& t, bool per_step);

}  // namespace cctune::tuner
