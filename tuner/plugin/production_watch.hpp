#pragma once
// The production watch (docs/WORKLOAD.md): a communicator's live busbw per shape against what
// the profile's sweep measured with the same rule on this cluster. A shape is reported when
// its median busbw falls short of the sweep's by more than the outlier rule diagnose uses
// (core/outliers.hpp): beyond min_shortfall and beyond z_max robust deviations of the job's
// own calls. Pure: runs when the workload file is written, never on the launch path.
#include <vector>

#include "tuner/profile/profile.hpp"
#include "workload/workload.hpp"

namespace cctune::tuner {

// Findings for `comm` (its ranks[0] is this process's rank). Shapes without a GPU-time
// histogram of at least kMinGroup calls, without a rule, or whose rule has no measurement
// within a factor of 2 of their size are not judged.
std::vector<workload::WatchFinding> watch_communicator(const workload::Communicator& comm, const Profile& profile);

}  // namespace cctune::tuner
