#pragma once
// The worker's side of the successive-halving strategy (tuner/search): per collective and
// placement, every candidate config is screened briefly at a size, the best few are
// re-measured, and the finalists plus NCCL's own choice get a full measurement. Every
// worker runs the same strategy on the same cross-rank results, so all ranks ask for the
// same next point without talking about it.
#include "runtime/worker_loop.hpp"

namespace cctune::runtime {

// Screening results go out as points with "screen_round"; full ones as plain points.
void run_halving_points(CollectiveBackend& backend, RankComm& comm, const WorkerSpec& spec, const WorkerPlan& plan,
                        const std::vector<PointSpec>& points, const Emit& emit);

// The measurement settings of a screening round of `iterations` timed operations: one batch,
// two warm-up operations, no noise target.
MeasureSettings screening_settings(const MeasureSettings& full, int iterations);

}  // namespace cctune::runtime
