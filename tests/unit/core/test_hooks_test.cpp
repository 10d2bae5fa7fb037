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
  EXPECT_FALSE(h.selftest_workers);
  EXPECT_TRUE(h.fault.empty());
  EXPECT_TRUE(h.fake_version.empty());
  EXPECT_EQ(h.probe_stall_rank, -1);
  EXPECT_EQ(h.selftest.gpus, 4);
  EXPECT_EQ(h.selftest.memory_bytes, 1ull << 30);
  EXPECT_DOUBLE_EQ(h.selftest.slowdown, 1.0);
}

TEST(TestHooks, ReadsEverySwitch) {
  const TestHooks h = read_test_hooks(env({{"CCTUNE_TEST_WORKER_BACKEND", "selftest"},
                                           {"CCTUNE_TEST_FAULT", "hang:1:3"},
                                           {"CCTUNE_TEST_FAKE_VERSION", "1:nccl=2.99.0"},
                                           {"CCTUNE_TEST_PROBE_STALL", "1:8.5"},
                                           {"CCTUNE_SELFTEST_GPUS", "2"},
                                           {"CCTUNE_SELFTEST_MEMORY", "4096"},
                                           {"CCTUNE_SELFTEST_SLOWDOWN", "1.5"},
                                           {"CCTUNE_SELFTEST_CONFIG_FACTORS", "ring/simple=0.6"},
                                           {"CCTUNE_SELFTEST_INIT_ERROR", "boom"}}));
  EXPECT_TRUE(h.selftest_workers);
  EXPECT_EQ(h.fault, "hang:1:3");
  EXPECT_EQ(h.fake_version, "1:nccl=2.99.0");
  EXPECT_EQ(h.probe_stall_rank, 1);
  EXPECT_DOUBLE_EQ(h.probe_stall_s, 8.5);
  EXPECT_EQ(h.selftest.gpus, 2);
  EXPECT_EQ(h.selftest.memory_bytes, 4096u);
  EXPECT_DOUBLE_EQ(h.selftest.slowdown, 1.5);
  EXPECT_EQ(h.selftest.config_factors, "ring/simple=0.6");
  EXPECT_EQ(h.selftest.init_error, "boom");
}

// Any value but "selftest" used to run the real NCCL module without the tuned-backend
// wrapper, so forced configs were measured as NCCL's default while labelled as forced.
TEST(TestHooks, UnknownWorkerBackendIsAUsageError) {
  for (const char* bad : {"nccl", "real", "SELFTEST", "1"}) {
    try {
      read_test_hooks(env({{"CCTUNE_TEST_WORKER_BACKEND", bad}}));
      ADD_FAILURE() << bad << " was accepted";
    } catch (const UsageError& e) {
      EXPECT_NE(e.what_only().find(std::string("CCTUNE_TEST_WORKER_BACKEND='") + bad + "'"), std::string::npos) << e.what_only();
      EXPECT_EQ(e.describe().find('\n'), std::string::npos);
    }
  }
  EXPECT_FALSE(read_test_hooks(env({{"CCTUNE_TEST_WORKER_BACKEND", ""}})).selftest_workers);
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
  EXPECT_EQ(h.selftest.slow_rank, h.slow_rank);
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
