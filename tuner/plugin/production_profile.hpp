#pragma once
// The profile a production job asked for with CCTUNE_PROFILE, read and checked once per
// process (NCCL creates one tuner context per communicator; re-reading the file for each
// would repeat the same warning and cost time at every communicator creation).
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

}  // namespace cctune::tuner
