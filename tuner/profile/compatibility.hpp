#pragma once
// Whether a profile measured elsewhere may steer NCCL here. A profile's choices are only
// as good as the library and machine they were measured on: another NCCL release has
// another cost model and other kernels, another topology other bandwidths.
#include <string>

#include "tuner/profile/profile.hpp"

namespace cctune::tuner {

// What the running process knows about itself; empty/0 means "unknown, not checked".
struct RuntimeFacts {
  int nccl_version_code = 0;         // ncclGetVersion(): 22809 for 2.28.9
  std::string topology_fingerprint;  // from CCTUNE_TOPOLOGY_FINGERPRINT
};

// Empty when the profile may be used, else one sentence saying why not. The NCCL
// version must match exactly (major.minor.patch); the topology fingerprint is compared
// when both the profile and the environment carry one.
std::string check_compatibility(const ProfileProvenance& provenance, const RuntimeFacts& facts);

}  // namespace cctune::tuner
