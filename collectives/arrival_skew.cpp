#include "collectives/arrival_skew.hpp"

#include "core/statistics.hpp"

namespace cctune {

void ArrivalSkew::add_round(RankComm& comm, std::vector<double>& iter_us, double own_batch_us) {
  const std::size_t n = iter_us.size();
  std::vector<double> spread(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    spread[i] = iter_us[i];
    spread[n + i] = -iter_us[i];  // the minimum as the max of negatives: one reduction for both
  }
  comm.allreduce_max(spread);
  // Exact equality is right here: the minimum is one rank's own value, passed unchanged.
  std::vector<double> at_min(n);
  for (std::size_t i = 0; i < n; ++i) at_min[i] = iter_us[i] == -spread[n + i] ? 1.0 : 0.0;
  comm.allreduce_sum(at_min);
  for (std::size_t i = 0; i < n; ++i) {
    const double fastest = -spread[n + i];
    own_us_.push_back(iter_us[i]);
    wait_us_.push_back(iter_us[i] - fastest);
    if (iter_us[i] == fastest && at_min[i] > 0) last_credit_ += 1.0 / at_min[i];
    iter_us[i] = spread[i];
  }
  batch_us_.push_back(own_batch_us);
}

RankRow ArrivalSkew::row() const {
  RankRow r;
  if (!batch_us_.empty()) r.batch_us = median(batch_us_);
  if (own_us_.empty()) return r;
  r.iter_median_us = median(own_us_);
  r.wait_median_us = median(wait_us_);
  r.last_pct = 100.0 * last_credit_ / static_cast<double>(own_us_.size());
  return r;
}

void pack_row(const RankRow& row, std::span<double> out) {
  out[0] = row.batch_us;
  out[1] = row.iter_median_us;
  out[2] = row.wait_median_us;
  out[3] = row.last_pct;
}

RankRow unpack_row(std::span<const double> in) { return RankRow{in[0], in[1], in[2], in[3]}; }

RankTimings gather_rank_timings(RankComm& comm, const RankRow& mine) {
  std::vector<double> flat(RankRow::width);
  pack_row(mine, flat);
  const std::vector<double> all = comm.allgather_values(flat);
  RankTimings t;
  for (std::size_t r = 0; r + RankRow::width <= all.size(); r += RankRow::width) {
    const RankRow row = unpack_row(std::span<const double>(all).subspan(r, RankRow::width));
    t.batch_us.push_back(row.batch_us);
    t.iter_median_us.push_back(row.iter_median_us);
    t.wait_median_us.push_back(row.wait_median_us);
    t.last_pct.push_back(row.last_pct);
  }
  return t;
}

}  // namespace cctune
