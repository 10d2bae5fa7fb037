#pragma once
// A racing sweep (docs/TUNING.md "The race") measures the groups still in the race again in
// later rounds, each rerun a run of its own with its round (RunResult::race_round) so that a
// sweep stopped mid-race loses nothing. Readers see one run per group: a later round's point
// replaces the same point of the group's first run, and the point it replaces joins that run's
// `screened` (it decided who raced on; tune, compare and report read `points` alone). Runs of
// round 0 are never folded: verify's and replay's rounds repeat a group on purpose. Pure.
#include "core/results.hpp"

namespace cctune {

void fold_race_rounds(Results& results);

}  // namespace cctune
