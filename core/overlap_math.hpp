#pragma once
// The arithmetic of `--overlap` (docs/TUNING.md "Collectives beside compute"), GPU-free so that
// it is tested without one: what a compute load's GEMMs, timed by events, say about the compute
// time a collective cost, and what one call then costs the job.
#include <vector>

namespace cctune {

// `ends_us`: the GEMMs' completion times, `start_us` the first one's start, all relative to the
// collective window's start; the GEMMs run back to back, so GEMM i ran from the previous end.
// Each GEMM that overlaps [0, window_us] lost (its duration - solo_us) to the collective; their
// sum is the compute lost in the part of the window the GEMMs covered, and the slowdown is that
// part / (that part - lost): the compute's time under load over its time alone. 0 when the GEMMs
// covered none of the window or solo_us is unknown. Short windows (a collective shorter than a
// GEMM) still count: the one GEMM they overlap carries all their cost.
double window_slowdown(double start_us, const std::vector<double>& ends_us, double window_us, double solo_us);

// Compute time the collective cost per call: `collective_us` x (1 - 1/slowdown), the compute
// work the GEMMs could not do while it ran. The job's cost of one call is collective_us + this.
// 0 for a slowdown that is unknown (<= 0).
double compute_us_of(double collective_us, double slowdown);

// How far the compute time of one call may lie from compute_us_of(collective_us, median of
// `slowdowns`): the largest distance to any round's own figure, so that the interval spans every
// round (for n rounds it holds the true median with probability 1 - 2 x 0.5^n, distribution-free:
// 75 % at 3, 97 % at 6). Fewer than two rounds prove nothing: the whole compute_us. The GEMMs'
// figures move from round to round far more than the collective's (on 4 x H200 the same config
// read 20 and 77 us in two rounds), so a decision by collective + compute must carry this too.
double compute_halfwidth_us(double collective_us, const std::vector<double>& slowdowns);

}  // namespace cctune
