#pragma once
// The config groups of an A/B comparison of NCCL's defaults (A, label "default") against a
// profile (B, label "profile"), shared by `cctune verify` (docs/TUNING.md "Verify") and
// `cctune replay --profile` (docs/WORKLOAD.md "Replay").
#include <string>
#include <vector>

#include "runtime/groups.hpp"
#include "tuner/profile/profile.hpp"

namespace cctune::app {

// `rounds` rounds of the two groups in alternating order (A B, B A, A B, ...), so that
// whatever favours the first or the second group of a round cancels out (on one H100, A-then-B
// verifies of a profile with no rule for the job had the second group slower in 105 of 144
// launch-bound (size, round) pairs). B's workers load
// the production tuner plugin `plugin` with CCTUNE_PROFILE=`profile_abs`, as a deployment
// would, plus the profile's env.
std::vector<runtime::ConfigGroup> ab_round_groups(const tuner::Profile& profile, const std::string& plugin,
                                                  const std::string& profile_abs, int rounds);

}  // namespace cctune::app
