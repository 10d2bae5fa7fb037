#include "tuner/profile/compatibility.hpp"

namespace cctune::tuner {

std::string check_compatibility(const ProfileProvenance& provenance, const RuntimeFacts& facts) {
  if (facts.nccl_version_code > 0) {
    const auto profile_code = nccl_version_code(provenance.nccl_version);
    if (!profile_code || *profile_code != facts.nccl_version_code)
      return "the profile was measured with NCCL " + provenance.nccl_version + " but this process runs NCCL " +
             nccl_version_string(facts.nccl_version_code) + "; re-run `cctune sweep` and `cctune tune` with this NCCL";
  }
  if (!facts.topology_fingerprint.empty() && !provenance.topology_fingerprint.empty() &&
      facts.topology_fingerprint != provenance.topology_fingerprint)
    return "the profile's topology fingerprint " + provenance.topology_fingerprint +
           " differs from this machine's (CCTUNE_TOPOLOGY_FINGERPRINT=" + facts.topology_fingerprint +
           "); use a profile measured on this kind of machine";
  return {};
}

}  // namespace cctune::tuner
