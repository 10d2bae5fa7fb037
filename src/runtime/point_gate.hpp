#pragma once
// The supervisor's check of a worker's point message against the plan. Workers are outside
// input: a buggy module or code injected into a worker must not add points the sweep never
// planned, repeat one, relabel one, or report a bandwidth its own size and time contradict.
#include <cstddef>
#include <set>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "collectives/backend.hpp"
#include "core/results.hpp"

namespace cctune::runtime {

class PointGate {
 public:
  // `points`: the group's plan, as every worker enumerates it; `nranks`: the communicator's size.
  PointGate(const std::vector<PointSpec>& points, int nranks);
  // The result as it is to be recorded (parsed, identity checked, bandwidths recomputed from
  // size and batch time), or a RuntimeFailure whose one line says what was wrong. `sender`:
  // the sending worker's NCCL rank; `announced`: the point it last said it was measuring.
  PointResult admit(int sender, long announced, long index, const nlohmann::json& result);

 private:
  const std::vector<PointSpec>& points_;
  int nranks_;
  std::vector<bool> recorded_;              // a full measurement (or a skip) came for the index
  std::set<std::pair<long, int>> screened_;  // (index, round) of screening measurements
};

}  // namespace cctune::runtime
