#pragma once
// The one check of a resolved plan, wherever it came from (the command line, a space, verify,
// diagnose, a worker's spec): values in range, finite seconds, at most max_size_count sizes
// and max_plan_points points. Throws UsageError naming the flag and the plan key, e.g.
// "--point-timeout (point_timeout_s) is inf, not a finite number above 0".
#include "runtime/sweep_plan.hpp"

namespace cctune::runtime {

void check_plan(const SweepPlan& plan);

}  // namespace cctune::runtime
