#pragma once
// What `cctune verify` measures when no size or collective flag is typed: what its profile's
// rules cover, as typed plan overrides (docs/TUNING.md "Verify").
#include <cstdint>
#include <vector>

#include "app/cli/plan_overrides.hpp"
#include "tuner/profile/profile.hpp"

namespace cctune::app {

// Powers of two around the rules' finite boundaries (half the lowest to twice the highest,
// 8 B..1 GiB), kept where some rule applies; 1M..64M when no boundary exists.
std::vector<std::uint64_t> sizes_from_rules(const tuner::Profile& profile);

// The profile's sizes unless `sizes_typed`, and its rules' collectives (first seen first)
// unless `collectives_typed` or it has no rule. Throws UsageError when no size is covered.
PlanOverrides verify_overrides(const tuner::Profile& profile, bool sizes_typed, bool collectives_typed);

}  // namespace cctune::app
