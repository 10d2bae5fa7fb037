#include "app/ab/ab_groups.hpp"

#include <filesystem>

#include "app/ab/ab_side.hpp"
#include "core/error.hpp"
#include "core/text.hpp"

namespace cctune::app {

ProfileUnderTest load_profile_under_test(const std::string& path, const std::string& executable) {
  auto loaded = tuner::load_profile(path);
  if (!loaded.profile) throw UsageError(loaded.error, "pass a profile.json written by cctune tune");
  return {*loaded.profile, std::filesystem::absolute(path).lexically_normal().string(), find_plugin_or_throw(executable)};
}

void check_ab_flags(int rounds, double tolerance) {
  if (rounds < 1 || rounds > 100) throw UsageError("--rounds must be 1..100", "use e.g. --rounds 6");
  // NaN and inf are no fraction: the check is written so that both fail it (review R15).
  if (!(tolerance >= 0 && tolerance <= 1))
    throw UsageError("--tolerance " + text::log_text(std::to_string(tolerance), 32) + " is not a fraction from 0 to 1",
                     "use e.g. --tolerance 0.02 (2 %)");
}

std::vector<runtime::ConfigGroup> ab_round_groups(const tuner::Profile& profile, const std::string& plugin, const std::string& profile_abs,
                                                  int rounds) {
  const AbSide defaults = defaults_side();
  const AbSide tuned = profile_side("profile", profile, profile_abs, plugin);
  const runtime::ConfigGroup a{defaults.name, defaults.env, {}};
  const runtime::ConfigGroup b{tuned.name, tuned.env, {}};
  std::vector<runtime::ConfigGroup> groups;
  for (int r = 0; r < rounds; ++r) {
    const auto [first, second] = alternate(&a, &b, r);
    groups.push_back(*first);
    groups.push_back(*second);
  }
  return groups;
}

}  // namespace cctune::app
