#include "app/ab/ab_groups.hpp"

#include <filesystem>

#include "core/error.hpp"
#include "core/text.hpp"
#include "tuner/export/outputs.hpp"

namespace cctune::app {

ProfileUnderTest load_profile_under_test(const std::string& path, const std::string& executable) {
  auto loaded = tuner::load_profile(path);
  if (!loaded.profile) throw UsageError(loaded.error, "pass a profile.json written by cctune tune");
  ProfileUnderTest out{*loaded.profile, std::filesystem::absolute(path).lexically_normal().string(), {}};
  bool found = false;
  out.plugin = tuner::find_tuner_plugin(executable, &found);
  if (!found)
    throw EnvironmentError("the tuner plugin libnccl-tuner-cctune.so was not found (looked for " + out.plugin + ")",
                           "build the nccl-tuner-cctune target, or install it next to cctune");
  return out;
}

void check_ab_flags(int rounds, double tolerance) {
  if (rounds < 1 || rounds > 100) throw UsageError("--rounds must be 1..100", "use e.g. --rounds 6");
  // NaN and inf are no fraction: the check is written so that both fail it (review R15).
  if (!(tolerance >= 0 && tolerance <= 1))
    throw UsageError("--tolerance " + text::log_text(std::to_string(tolerance), 32) + " is not a fraction from 0 to 1",
                     "use e.g. --tolerance 0.02 (2 %)");
}

std::vector<runtime::ConfigGroup> ab_round_groups(const tuner::Profile& profile, const std::string& plugin,
                                                  const std::string& profile_abs, int rounds) {
  const runtime::ConfigGroup a{"default", {}, {}};
  runtime::ConfigGroup b{"profile", profile.env, {}};
  // A group's own NCCL_TUNER_PLUGIN wins over the sweep's STATIC_PLUGIN (runtime/nccl_job.cpp).
  b.env["NCCL_TUNER_PLUGIN"] = plugin;
  b.env["CCTUNE_PROFILE"] = profile_abs;
  std::vector<runtime::ConfigGroup> groups;
  for (int r = 0; r < rounds; ++r) {
    groups.push_back(r % 2 == 0 ? a : b);
    groups.push_back(r % 2 == 0 ? b : a);
  }
  return groups;
}

}  // namespace cctune::app
