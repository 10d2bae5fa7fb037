#pragma once
// The profile a production job asked for with CCTUNE_PROFILE, read and checked once per
// process (NCCL creates one tuner context per communicator; re-reading the file for each
// would repeat the same warning and cost time at every communicator creation).
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>

#include "tuner/profile/compatibility.hpp"
#include "tuner/profile/profile.hpp"

namespace cctune::tuner {

struct ProductionProfile {
  std::string path;                // CCTUNE_PROFILE; empty when not set
  std::optional<Profile> profile;  // set when it was read, is valid and fits this process
  std::string problem;             // otherwise why not (empty when CCTUNE_PROFILE is unset)
  RuntimeFacts facts;              // what was checked
};

// Pure: reads `path` and checks it against `facts`. Used by production_profile() and tests.
ProductionProfile load_production_profile(const std::string& path, const RuntimeFacts& facts);

// The process-wide one, loaded on first use from the environment: CCTUNE_PROFILE,
// CCTUNE_TOPOLOGY_FINGERPRINT, and the version of the NCCL loaded in this process
// (ncclGetVersion, found with dlsym; unknown when NCCL is not loaded).
const ProductionProfile& production_profile();

// ncclGetVersion() of the NCCL in this process, 0 when it cannot be found.
int loaded_nccl_version_code() noexcept;

// What the tuner half did in this process: the profiler half writes it into its workload file,
// from which `cctune verify --job` tells whether a profile changed anything in the job (review
// R8: a profile for another NCCL, or for other ranks and nodes, was raced and read "same").
// Relaxed atomics: one increment per steered call on NCCL's launch path, no lock.
struct TunerActivity {
  std::atomic<std::uint64_t> communicators{0};  // tuner contexts NCCL created with this plugin
  std::atomic<std::uint64_t> with_rules{0};     // of them, those a profile rule applies to
  std::atomic<std::uint64_t> calls_steered{0};  // calls a rule's choice was applied to
};
// The process-wide one; never destroyed (the profiler half's last write runs at exit).
TunerActivity& tuner_activity() noexcept;

}  // namespace cctune::tuner
