#pragma once
// The two sides of every A/B comparison cctune makes (verify, the sweep's confirmation round,
// replay --profile, verify --job, tune --job): NCCL's defaults, and a profile applied as a
// deployment applies it. One builder, one order of the two within a round, one way to find the
// plugin that applies the profile, so that the five commands compare the same two things.
#include <map>
#include <string>
#include <utility>

#include "tuner/profile/profile.hpp"

namespace cctune::app {

struct AbSide {
  std::string name;                        // "default", "profile", a candidate's name
  std::map<std::string, std::string> env;  // what it adds to the environment NCCL starts with
};

// NCCL's defaults: nothing added; what the caller's environment sets applies to both sides.
AbSide defaults_side();
// `profile` (read from `profile_abs`) as a deployment applies it: its env plus the tuner plugin
// `plugin` with CCTUNE_PROFILE. Throws UsageError for an env a profile may not set
// (tuner::validate_profile): the side runs it on the user's job and on cctune's workers.
AbSide profile_side(std::string name, const tuner::Profile& profile, const std::string& profile_abs, const std::string& plugin);

// The order of a round's two sides (`round` from 0): `a` first in even rounds, `b` first in odd
// ones, so that whatever favours the first or the second run of a round cancels over the rounds
// (on one H100, A-then-B verifies of a profile with no rule for the job had the second group
// slower in 105 of 144 launch-bound (size, round) pairs).
template <class T>
std::pair<T, T> alternate(T a, T b, int round) {
  if (round % 2 == 0) return {std::move(a), std::move(b)};
  return {std::move(b), std::move(a)};
}

// The tuner plugin libnccl-tuner-cctune.so next to `executable` (tuner::find_tuner_plugin),
// absolute; EnvironmentError when it is missing: no A/B side can apply a profile without it.
std::string find_plugin_or_throw(const std::string& executable);

}  // namespace cctune::app
