#pragma once
// Naming a straggler from the per-rank timings of a point (PointResult::ranks): the rank
// that arrives last at most operations while the others measurably wait for it. Pure
// functions over results, so synthetic per-rank data tests them. docs/DIAGNOSE.md gives the
// rule and its limits: it sees a rank that *launches* late (slow host thread, a late
// launcher, CPU contention); a slow GPU or link inside a ring slows every rank alike.
#include <optional>
#include <string>
#include <vector>

#include "core/results.hpp"

namespace cctune::diagnose {

// When a rank is called a straggler at one point. All must hold:
// - it arrived last in more than min_last_pct % of the operations (more than any other rank);
// - the other ranks' median wait (median over them of wait_median_us) is at least
//   max(min_wait_us, min_wait_fraction x the point's operation time), where the operation
//   time is the median over ranks of iter_median_us: noise of a healthy run stays below.
struct StragglerRule {
  double min_last_pct = 50;
  double min_wait_us = 5;
  double min_wait_fraction = 0.10;
};

struct Straggler {
  int rank = -1;
  std::string host;            // "" when the run recorded no places (cctune.results/1)
  int gpu = -1;                // -1: no GPU (MPI on host buffers) or unknown
  double last_pct = 0;         // % of operations it arrived last
  double others_wait_us = 0;   // the other ranks' median wait for it, per operation
  double op_us = 0;            // the operation's time (median over ranks of iter_median_us)
};

// A rank named at several points of one run.
struct StragglerTally {
  Straggler straggler;  // last_pct and others_wait_us: medians over the points it was named at
  int points_named = 0;
  int points_measured = 0;  // ok points with per-rank timings
};

// The straggler of one point, or nullopt (no per-rank data, fewer than 2 ranks, or the rule
// does not hold). `places` indexed by rank; may be empty or shorter (host "", gpu -1).
std::optional<Straggler> find_straggler(const PointResult& point, const std::vector<RankPlace>& places,
                                        const StragglerRule& rule = {});

// Every rank named as straggler at enough of the run's points: at least 2 (or all, when
// fewer were measured) and at least 20 % of them; most points first.
std::vector<StragglerTally> find_stragglers(const RunResult& run, const StragglerRule& rule = {});

// "rank 13 (host gpu-07, GPU 5) arrives last in 92 % of operations"
std::string describe(const Straggler& s);
// "rank 13 (host gpu-07, GPU 5) arrives last in 92 % of operations at 14 of 16 points"
std::string describe(const StragglerTally& t);

}  // namespace cctune::diagnose
