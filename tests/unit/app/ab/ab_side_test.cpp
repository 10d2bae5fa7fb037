// The A/B family's sides (app/ab/ab_side.hpp): what each adds, what a profile may not set, the
// order within a round, and verify's config groups built from them.
#include <gtest/gtest.h>

#include "app/ab/ab_groups.hpp"
#include "app/ab/ab_side.hpp"
#include "core/error.hpp"

namespace cctune::app {
namespace {

tuner::Profile profile_with(std::map<std::string, std::string> env) {
  tuner::Profile p;
  p.provenance.nccl_version = "2.28.3";
  p.env = std::move(env);
  return p;
}

TEST(AbSide, DefaultsAddNothingAndTheProfileAddsItsEnvAndThePlugin) {
  EXPECT_EQ(defaults_side().name, "default");
  EXPECT_TRUE(defaults_side().env.empty());
  const AbSide side = profile_side("profile", profile_with({{"NCCL_MIN_NCHANNELS", "16"}}), "/p/profile.json", "/lib/plugin.so");
  EXPECT_EQ(side.name, "profile");
  const std::map<std::string, std::string> expected = {
      {"NCCL_MIN_NCHANNELS", "16"}, {"NCCL_TUNER_PLUGIN", "/lib/plugin.so"}, {"CCTUNE_PROFILE", "/p/profile.json"}};
  EXPECT_EQ(side.env, expected);
}

// A candidate built in memory is not read back through the profile's reader: the side checks it,
// so a setting no profile may deploy never reaches the job or the workers.
TEST(AbSide, AProfileSettingWhatNoProfileMaySetIsRefused) {
  EXPECT_THROW(profile_side("x", profile_with({{"NCCL_TUNER_PLUGIN", "/tmp/evil.so"}}), "/p.json", "/lib/plugin.so"), UsageError);
  EXPECT_THROW(profile_side("x", profile_with({{"LD_PRELOAD", "/tmp/evil.so"}}), "/p.json", "/lib/plugin.so"), UsageError);
}

TEST(AbSide, RoundsAlternateWhichSideRunsFirst) {
  EXPECT_EQ(alternate(1, 2, 0), std::pair(1, 2));
  EXPECT_EQ(alternate(1, 2, 1), std::pair(2, 1));
  EXPECT_EQ(alternate(1, 2, 2), std::pair(1, 2));
  EXPECT_EQ(alternate(1, 2, 7), std::pair(2, 1));
}

TEST(AbSide, VerifysGroupsAreTheTwoSidesInAlternatingOrder) {
  const auto groups = ab_round_groups(profile_with({{"NCCL_MIN_NCHANNELS", "16"}}), "/lib/plugin.so", "/p/profile.json", 3);
  ASSERT_EQ(groups.size(), 6u);
  const std::vector<std::string> order = {"default", "profile", "profile", "default", "default", "profile"};
  for (std::size_t i = 0; i < groups.size(); ++i) EXPECT_EQ(groups[i].label, order[i]) << i;
  EXPECT_EQ(groups[1].env, profile_side("profile", profile_with({{"NCCL_MIN_NCHANNELS", "16"}}), "/p/profile.json", "/lib/plugin.so").env);
  EXPECT_TRUE(groups[0].env.empty());
}

TEST(AbSide, AMissingPluginIsAnEnvironmentError) { EXPECT_THROW(find_plugin_or_throw("/nonexistent/dir/cctune"), EnvironmentError); }

}  // namespace
}  // namespace cctune::app
