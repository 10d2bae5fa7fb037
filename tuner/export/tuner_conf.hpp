#pragma once
// nccl_tuner.conf: the CSV read by NCCL's example tuner plugin (plugins/tuner/example in
// NCCL 2.28): collective_type,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks,
// numPipeOps,regBuff. Byte bounds inclusive; channels -1 keeps NCCL's count; numPipeOps and
// regBuff -1 match anything. That parser skips only lines whose first character is '#'
// (or that are empty), reads lines of at most 255 characters, and takes the first match.
// Its getCollInfo also pre-sets nChannels to 1 before matching, so "-1" (keep) leaves ONE
// channel; where a rule keeps NCCL's count we therefore write the count NCCL was seen using.
#include <string>
#include <vector>

#include "tuner/profile/profile.hpp"

namespace cctune::tuner {

// One line per rule, in the profile's order (rules are disjoint, so first-match is exact).
// `observed_channels[i]` (optional, 0 unknown) is written for rule i when it has channels 0.
std::string format_example_tuner_conf(const Profile& profile, const std::vector<int>& observed_channels = {});

}  // namespace cctune::tuner
