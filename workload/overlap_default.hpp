#pragma once
// Whether a workload sweep runs beside compute by default (`sweep --workload` without
// --overlap; docs/TUNING.md "Collectives beside compute"). A capture with step times says how
// much of a step no collective runs: that is the job's compute (or idle time) between and beside
// its calls, which SM-taking settings compete with. Pure.
#include <optional>
#include <string>

#include "workload/workload_plan.hpp"

namespace cctune::workload {

// Compute a quarter of the step or more: a DDP/FSDP step (compute-heavy by design) is well
// above it, a loop of back-to-back collectives (a benchmark, a capture of communication only)
// well below; between, the collectives dominate and measuring them alone is what the job sees.
inline constexpr double kOverlapComputeShare = 0.25;

struct OverlapDefault {
  bool on = false;
  // 1 - (the planned calls' time per step / the step's time), in [0, 1]; nullopt when the
  // capture has no step time (CCTUNE_WORKLOAD_STEP_TIMES=1 keeps one) or no call time.
  std::optional<double> compute_share;
  std::string why;  // one line for the sweep's output
};

OverlapDefault overlap_default(const WorkloadPlan& plan);

}  // namespace cctune::workload
