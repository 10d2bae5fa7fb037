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
  bool operator==(const SlowRank&) const = default;
};

struct TestHooks {
  std::string fault;                 // CCTUNE_TEST_FAULT=kind:rank:point[:group] (runtime::parse_test_fault)
  std::string fake_version;          // CCTUNE_TEST_FAKE_VERSION="RANK:key=value;..."
  int probe_stall_rank = -1;         // CCTUNE_TEST_PROBE_STALL=RANK:SECONDS
  double probe_stall_s = 0;
  SlowRank slow_rank;                // CCTUNE_TEST_SLOW_RANK=RANK:DELAY_US
};

// Looks a variable up: nullptr when unset. The default reads the process environment.
using EnvLookup = std::function<const char*(const char*)>;

// Reads every hook once. Throws UsageError naming the variable when one is malformed.
TestHooks read_test_hooks(const EnvLookup& lookup = {});

}  // namespace cctune
