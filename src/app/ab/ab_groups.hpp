#pragma once
// The config groups of an A/B comparison of NCCL's defaults (A, label "default") against a
// profile (B, label "profile"), shared by `cctune verify` (docs/TUNING.md "Verify") and
// `cctune replay --profile` (docs/WORKLOAD.md "Replay").
#include <string>
#include <vector>

#include "runtime/groups.hpp"
#include "tuner/profile/profile.hpp"

namespace cctune::app {

// The profile an A/B comparison runs as B, with the production plugin that applies it.
struct ProfileUnderTest {
  tuner::Profile profile;
  std::string path;    // absolute: B's workers read it from any directory
  std::string plugin;  // absolute path of libnccl-tuner-cctune.so
};
// Reads `path` and finds the plugin next to `executable`; throws UsageError for a profile
// that is none, EnvironmentError when the plugin is missing. Every rank calls it (under
// agree_on_errors: a node-local file may be missing on one node only).
ProfileUnderTest load_profile_under_test(const std::string& path, const std::string& executable);

// --rounds (1..100) and --tolerance (not negative); UsageError naming the flag.
void check_ab_flags(int rounds, double tolerance);

// `rounds` rounds of the two sides (ab_side.hpp) as config groups, in the family's alternating
// order (A B, B A, A B, ...). B's workers load the production tuner plugin `plugin` with
// CCTUNE_PROFILE=`profile_abs`, as a deployment would, plus the profile's env.
std::vector<runtime::ConfigGroup> ab_round_groups(const tuner::Profile& profile, const std::string& plugin, const std::string& profile_abs,
                                                  int rounds);

}  // namespace cctune::app
