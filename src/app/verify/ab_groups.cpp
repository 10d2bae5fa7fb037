#include "app/verify/ab_groups.hpp"

namespace cctune::app {

std::vector<runtime::ConfigGroup> ab_round_groups(const tuner::Profile& profile, const std::string& plugin,
                                                  const std::string& profile_abs, int rounds) {
  const runtime::ConfigGroup a{"default", {}, {}};
  runtime::ConfigGroup b{"profile", profile.env, {}};
  // A group's own NCCL_TUNER_PLUGIN wins over the sweep's STATIC_PLUGIN (nccl_sweep.cpp).
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
