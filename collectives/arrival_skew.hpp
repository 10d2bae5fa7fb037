#pragma once
// Per-rank timings and arrival skew, without synchronized clocks (clocks of different nodes
// are not comparable). Per timed operation every rank knows only its own time t[r]; in a
// collective the rank that arrived last waits least, so wait[r] = t[r] - min over ranks, and
// the rank(s) holding the minimum arrived last. docs/RESULTS.md ("Per-rank timings") gives
// the definition and its limits.
#include <cstddef>
#include <span>
#include <vector>

#include "comm/rank_comm.hpp"
#include "core/results.hpp"

namespace cctune {

// One rank's summary of a point; the row every rank contributes to RankTimings.
struct RankRow {
  double batch_us = 0;        // median over rounds of its wall batch time per operation
  double iter_median_us = 0;  // median of its own per-operation times
  double wait_median_us = 0;  // median of its waits
  double last_pct = 0;        // % of operations it arrived last
  static constexpr std::size_t width = 4;
};

class ArrivalSkew {
 public:
  // One round's per-operation times of this rank (replaced by the slowest rank's time per
  // operation, what the stop rule is fed) and its wall batch time per operation. One
  // allreduce_max of [t, -t] (max and min at once: the reduction the engine always made)
  // plus one allreduce_sum counting the ranks tied at the minimum.
  void add_round(RankComm& comm, std::vector<double>& iter_us, double own_batch_us);
  RankRow row() const;

 private:
  std::vector<double> own_us_, wait_us_, batch_us_;
  double last_credit_ = 0;  // operations arrived last; a tie of k ranks credits each 1/k
};

// Every rank's row, indexed by rank, on every rank (one allgather).
RankTimings gather_rank_timings(RankComm& comm, const RankRow& mine);

// Rows <-> the flat values one rank contributes to the gather.
void pack_row(const RankRow& row, std::span<double> out);
RankRow unpack_row(std::span<const double> in);

}  // namespace cctune
