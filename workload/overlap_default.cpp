#include "workload/overlap_default.hpp"

#include <algorithm>
#include <cstdio>

namespace cctune::workload {

OverlapDefault overlap_default(const WorkloadPlan& plan) {
  OverlapDefault d;
  double calls_us = 0;
  bool estimated = false;
  for (const JobPoint& p : plan.points) {
    calls_us += p.time_us_per_step;
    estimated = estimated || p.time_estimated;
  }
  if (!plan.per_step || !(plan.step_us > 0) || !(calls_us > 0)) {
    d.why =
        "overlap off: the capture has no step time to tell how much of a step is compute (capture with "
        "CCTUNE_WORKLOAD_STEP_TIMES=1, or pass --overlap)";
    return d;
  }
  d.compute_share = std::clamp(1.0 - calls_us / plan.step_us, 0.0, 1.0);
  d.on = *d.compute_share >= kOverlapComputeShare;
  char line[320];
  std::snprintf(line, sizeof line, "overlap %s: no collective runs in %.0f %% of the job's step (on from %.0f %%%s; %s)",
                d.on ? "on" : "off", 100 * *d.compute_share, 100 * kOverlapComputeShare,
                estimated ? ", some call times estimated from their size" : "",
                d.on ? "--overlap off measures the collectives alone" : "--overlap measures them beside compute");
  d.why = line;
  return d;
}

}  // namespace cctune::workload
