// The production path against the real libnccl, as far as it goes without a GPU: this
// executable links libnccl, so the plugin finds the real ncclGetVersion and must refuse a
// profile measured with another NCCL release (one warning, no change) and accept one
// measured with this release. Communicator creation needs a GPU: tests/gpu/plugin_gpu_check.sh.
#include <nccl.h>

#include <fstream>
#include <sstream>

#include "plugin_scenario.hpp"

namespace cctune::tuner {
namespace {

using namespace scenario;

std::string runtime_version() {
  int code = 0;
  EXPECT_EQ(ncclGetVersion(&code), ncclSuccess);
  return std::to_string(code / 10000) + "." + std::to_string(code / 100 % 100) + "." + std::to_string(code % 100);
}

// unit_profile.json with its nccl_version replaced.
std::string profile_for_version(const std::string& version) {
  std::ifstream in(kFixtures + "unit_profile.json");
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  const std::string key = "\"nccl_version\": \"2.28.3\"";
  s.replace(s.find(key), key.size(), "\"nccl_version\": \"" + version + "\"");
  const std::string path = std::string(CCTUNE_BINARY_DIR) + "/tuner_real_nccl_profile_" + version + ".json";
  std::ofstream(path) << s;
  return path;
}

TEST(PluginWithRealNccl, ProfileOfAnotherNcclReleaseIsRefusedOnce) {
  const std::string version = runtime_version();
  const std::string other = version == "2.28.3" ? "2.28.9" : "2.28.3";
  const std::string path = profile_for_version(other);
  RUN_SCENARIO({
    setenv("CCTUNE_PROFILE", path.c_str(), 1);
    for (int comm = 0; comm < 2; ++comm)
      SCENARIO_CHECK(untouched(get(init(8, 1), nccl_abi::kFuncAllReduce, 4096)));
    SCENARIO_CHECK(testing::count_level(nccl_abi::kLogWarn) == 1);
    const std::string warning = testing::captured_log()[0].second;
    SCENARIO_CHECK(warning.find("NCCL " + other) != std::string::npos);
    SCENARIO_CHECK(warning.find("runs NCCL " + version) != std::string::npos);
  });
}

TEST(PluginWithRealNccl, ProfileOfThisNcclReleaseApplies) {
  const std::string path = profile_for_version(runtime_version());
  RUN_SCENARIO({
    setenv("CCTUNE_PROFILE", path.c_str(), 1);
    Call c = get(init(8, 1), nccl_abi::kFuncAllReduce, 1 << 20);
    SCENARIO_CHECK(chose(c, kRing, kSimple) && c.channels == 32);
    SCENARIO_CHECK(testing::count_level(nccl_abi::kLogWarn) == 0);
  });
}

}  // namespace
}  // namespace cctune::tuner
