#pragma once
// A measured time with its uncertainty, and the rule that decides whether one
// configuration is faster than another beyond noise. Pure functions, no I/O.
#include "core/results.hpp"

namespace cctune::tuner {

struct Timing {
  double time_us = 0;       // median per-iteration time (max over ranks), plus compute_us
  double halfwidth_us = 0;  // half-width of the median's ~95% confidence interval
  // `sweep --overlap` points (docs/TUNING.md "Collectives beside compute"): the compute time the
  // call cost the GEMMs beside it, counted in time_us, so that every decision is by what one
  // call costs the job (collective + compute). 0 and false for points measured alone.
  double compute_us = 0;
  bool overlap = false;
  double collective_us() const { return time_us - compute_us; }
};

// From a point: iter_us.median (batch_us when there are no per-iteration samples), plus the
// point's overlap.compute_us where it has one (and its compute_halfwidth_us in the half-width), and
// rel_noise x median; when rel_noise is unknown (0 or not finite) 1.96 stddev / sqrt(n);
// with fewer than two samples the half-width is the time itself (nothing can be proven).
Timing timing_of(const PointResult& point);

// True when `candidate` beats `reference` by at least `min_gain` and `min_gain_us` even at the
// unfavourable ends of both intervals (the gain clears the tolerance with its interval):
//   candidate.time + candidate.halfwidth <= (reference.time - reference.halfwidth) * (1 - min_gain), and
//   (reference.time - reference.halfwidth) - (candidate.time + candidate.halfwidth) >= min_gain_us.
bool significantly_faster(const Timing& candidate, const Timing& reference, double min_gain, double min_gain_us = 0);

}  // namespace cctune::tuner
