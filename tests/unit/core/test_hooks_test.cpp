#include "core/test_hooks.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "core/error.hpp"

namespace cctune {
namespace {

// An environment of its own per test, so nothing depends on the process's variables.
EnvLookup env(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

TEST(TestHooks, NoneSetMeansProduction) {
  const TestHooks h = read_test_hooks(env({}));
  EXPECT_TRUE(h.fault.empty());
  EXPECT_TRUE(h.fake_version.empty());
  EXPECT_EQ(h.probe_stall_rank, -1);
}

TEST(TestHooks, ReadsEverySwitch) {
  const TestHooks h = read_test_hooks(env({{"CCTUNE_TEST_FAULT", "hang:1:3"},
                                           {"CCTUNE_TEST_FAKE_VERSION", "1:nccl=2.99.0"},
                                           {"CCTUNE_TEST_PROBE_STALL", "1:8.5"}}));
  EXPECT_EQ(h.fault, "hang:1:3");
  EXPECT_EQ(h.fake_version, "1:nccl=2.99.0");
  EXPECT_EQ(h.probe_stall_rank, 1);
  EXPECT_DOUBLE_EQ(h.probe_stall_s, 8.5);
}

TEST(TestHooks, MalformedProbeStallIsAUsageError) {
  for (const char* bad : {"1", "x:2", "1:y"})
    EXPECT_THROW(read_test_hooks(env({{"CCTUNE_TEST_PROBE_STALL", bad}})), UsageError) << bad;
}

TEST(TestHooks, SlowRankReachesTheSelftestWorkersToo) {
  EXPECT_EQ(read_test_hooks(env({})).slow_rank.rank, -1);
  const TestHooks h = read_test_hooks(env({{"CCTUNE_TEST_SLOW_RANK", "3:250.5"}}));
  EXPECT_EQ(h.slow_rank.rank, 3);
  EXPECT_DOUBLE_EQ(h.slow_rank.delay_us, 250.5);
  EXPECT_TRUE(h.slow_rank.applies_to(3));
  EXPECT_FALSE(h.slow_rank.applies_to(2));
}

TEST(TestHooks, MalformedSlowRankIsAOneLineUsageError) {
  for (const char* bad : {"1", "two:300", "1:", "-1:300", "1:0", "1:2e6", "1:300us", "1x:300"}) {
    try {
      read_test_hooks(env({{"CCTUNE_TEST_SLOW_RANK", bad}}));
      ADD_FAILURE() << bad << " was accepted";
    } catch (const UsageError& e) {
      EXPECT_NE(e.what_only().find(std::string("CCTUNE_TEST_SLOW_RANK='") + bad + "'"), std::string::npos) << e.what_only();
      EXPECT_EQ(e.describe().find('\n'), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace cctune
