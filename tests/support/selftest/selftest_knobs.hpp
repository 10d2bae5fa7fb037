#pragma once
// What libcctune-selftest.so simulates, read from its own test-only environment variables
// (docs/TESTING.md, "Test hooks"). Only this test module reads them; the cctune executable
// never does.
#include <cstdint>
#include <string>

#include "test_env.hpp"

namespace cctune::selftest {

using test_env::SlowRank;

struct Knobs {
  int gpus = 4;                             // CCTUNE_SELFTEST_GPUS: device_count()
  std::uint64_t memory_bytes = 1ull << 30;  // CCTUNE_SELFTEST_MEMORY: per-GPU memory
  double slowdown = 1.0;                    // CCTUNE_SELFTEST_SLOWDOWN: factor on every sleep
  std::string config_factors;               // CCTUNE_SELFTEST_CONFIG_FACTORS: "ring/simple=0.6,tree/ll/16=1.4"
  std::string refused_setting;              // CCTUNE_SELFTEST_REFUSED_SETTING: KEY=VALUE create_backend() refuses
  std::string record_step;                  // CCTUNE_SELFTEST_RECORD_STEP: file prefix for replayed steps' calls
  // CCTUNE_SELFTEST_OVERLAP_COST (and ..._COST_WITH=KEY=VALUE:COST, in a worker whose environment
  // has KEY=VALUE): with `--overlap`, per-operation batches report compute_slowdown 1 + COST.
  double overlap_cost = 0;
  SlowRank slow_rank;                       // CCTUNE_TEST_SLOW_RANK, as NCCL ranks
  std::string nccl_version = "selftest";    // CCTUNE_SELFTEST_NCCL_VERSION: nccl_version() (a release, for a tune at a sweep's end)
};

// Throws UsageError naming the variable when CCTUNE_TEST_SLOW_RANK is malformed; the other
// values are read leniently (atoi/atof): they only shape what the stand-in simulates.
Knobs read_knobs();

}  // namespace cctune::selftest
