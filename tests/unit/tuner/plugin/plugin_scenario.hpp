#pragma once
// Helpers for tests that load libnccl-tuner-cctune.so as NCCL does (dlopen + dlsym of the
// versioned symbol) and call it with cost tables in NCCL's shape. The plugin reads
// CCTUNE_PROFILE once per process, so each scenario runs in a child process of its own
// (gtest's death-test machinery) with its own environment; checks inside it print the
// plugin's log and exit non-zero on failure.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "capture_logger.hpp"
#include "fake_cost_table.hpp"
#include "tuner/plugin/nccl_tuner_abi.hpp"

namespace cctune::tuner::scenario {


using cctune::tuner::testing::FakeCostTable;
inline const std::string kFixtures = std::string(CCTUNE_SOURCE_DIR) + "/tests/fixtures/tuner/";

#define SCENARIO_CHECK(cond)                                                                              \
  do {                                                                                                    \
    if (!(cond)) {                                                                                        \
      std::fprintf(stderr, "check failed at line %d: %s\nlog:\n%s", __LINE__, #cond,                     \
                   testing::all_lines().c_str());                                                         \
      std::_Exit(1);                                                                                      \
    }                                                                                                     \
  } while (0)

// Runs `body` in a child process; the test passes when the child exits 0.
#define RUN_SCENARIO(...)                                                  \
  do {                                                                     \
    auto scenario_body = [&] { __VA_ARGS__; };                             \
    EXPECT_EXIT({ scenario_body(); std::_Exit(0); }, ::testing::ExitedWithCode(0), ""); \
  } while (0)

inline void* open_plugin() {
  void* handle = dlopen(CCTUNE_TUNER_PLUGIN_SO, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    std::fprintf(stderr, "dlopen %s: %s\n", CCTUNE_TUNER_PLUGIN_SO, dlerror());
    std::_Exit(2);
  }
  return handle;
}

inline const nccl_abi::TunerV5& v5() {
  static const auto* plugin = static_cast<const nccl_abi::TunerV5*>(dlsym(open_plugin(), "ncclTunerPlugin_v5"));
  if (!plugin) std::_Exit(3);
  return *plugin;
}

inline void* init(std::size_t nranks, std::size_t nnodes, nccl_abi::Logger log = testing::capture_logger) {
  void* context = nullptr;
  nccl_abi::NvlDomainInfoV5 nvl{1, int(nranks), int(nranks)};
  nccl_abi::TunerConstantsV5 constants{};
  SCENARIO_CHECK(v5().init(&context, 7, nranks, nnodes, log, &nvl, &constants) == nccl_abi::kSuccess);
  return context;
}

struct Call {
  FakeCostTable table;
  int channels = 0;
};
inline Call get(void* context, int func, std::size_t bytes) {
  Call c;
  SCENARIO_CHECK(v5().get_coll_info(context, func, bytes, 1, c.table.as_nccl_passes_it(), testing::kAlgos,
                                    testing::kProtos, 0, &c.channels) == nccl_abi::kSuccess);
  return c;
}
inline bool untouched(const Call& c) { return c.table.equals(FakeCostTable{}) && c.channels == 0; }
// Exactly the one entry set to 0.0, everything else as NCCL passed it.
inline bool chose(const Call& c, int algo, int proto) {
  FakeCostTable expected;
  expected.cells[algo][proto] = 0.0f;
  return c.table.equals(expected);
}

inline void use_profile(const std::string& name) {
  setenv("CCTUNE_PROFILE", (kFixtures + name).c_str(), 1);
  unsetenv("CCTUNE_TOPOLOGY_FINGERPRINT");
}

inline constexpr int kTree = 0, kRing = 1, kLL = 0, kLL128 = 1, kSimple = 2;


}  // namespace cctune::tuner::scenario
