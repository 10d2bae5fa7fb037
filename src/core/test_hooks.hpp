#pragma once
// The test-only environment switches, read in one place (read_test_hooks) and handed to the
// code that uses them. docs/TESTING.md lists them. Variables users set (CCTUNE_PROFILE,
// CCTUNE_SPACES_DIR, CCTUNE_NCCL_MODULE, CCTUNE_CUDA_DRIVER_LIB, NCCL_*) are not hooks and
// are read where they apply.
#include <cstdint>
#include <functional>
#include <string>

namespace cctune {

// CCTUNE_TEST_SLOW_RANK=RANK:DELAY_US: that rank launches every operation DELAY_US late, so
// the others really wait for it (MPI backend) or are modelled to (selftest workers): the
// per-rank timings must then name it as the straggler.
struct SlowRank {
  int rank = -1;  // -1: off
  double delay_us = 0;
  bool applies_to(int r) const { return rank >= 0 && r == rank; }
};

// What the GPU-free selftest worker backend (runtime/selftest_module.cpp) simulates.
struct SelftestHooks {
  int gpus = 4;                           // CCTUNE_SELFTEST_GPUS: device_count()
  std::uint64_t memory_bytes = 1ull << 30;  // CCTUNE_SELFTEST_MEMORY: per-GPU memory
  double slowdown = 1.0;                  // CCTUNE_SELFTEST_SLOWDOWN: factor on every sleep
  std::string config_factors;             // CCTUNE_SELFTEST_CONFIG_FACTORS: "ring/simple=0.6,tree/ll/16=1.4"
  std::string init_error;                 // CCTUNE_SELFTEST_INIT_ERROR: create_backend() fails with it
  SlowRank slow_rank;                     // CCTUNE_TEST_SLOW_RANK (a copy of TestHooks::slow_rank)
};

struct TestHooks {
  // CCTUNE_TEST_WORKER_BACKEND=selftest: workers use the selftest stand-in instead of
  // libcctune-nccl.so. Any other non-empty value is refused, so that a typo cannot run the
  // real module half-configured.
  bool selftest_workers = false;
  std::string fault;                 // CCTUNE_TEST_FAULT=kind:rank:point[:group] (runtime::parse_test_fault)
  std::string fake_version;          // CCTUNE_TEST_FAKE_VERSION="RANK:key=value;..."
  int probe_stall_rank = -1;         // CCTUNE_TEST_PROBE_STALL=RANK:SECONDS
  double probe_stall_s = 0;
  SlowRank slow_rank;                // CCTUNE_TEST_SLOW_RANK=RANK:DELAY_US
  SelftestHooks selftest;
};

// Looks a variable up: nullptr when unset. The default reads the process environment.
using EnvLookup = std::function<const char*(const char*)>;

// Reads every hook once. Throws UsageError naming the variable when one is malformed.
TestHooks read_test_hooks(const EnvLookup& lookup = {});

}  // namespace cctune
