#include "tuner/export/tuner_conf.hpp"

namespace cctune::tuner {

std::string format_example_tuner_conf(const Profile& profile, const std::vector<int>& observed_channels) {
  std::string out;
  out += "# Written by cctune tune from a cctune.profile/1 profile (NCCL " + profile.provenance.nccl_version + ").\n";
  out += "# For NCCL's example tuner plugin: NCCL_TUNER_PLUGIN=<libnccl-tuner-example.so> NCCL_TUNER_CONFIG_FILE=<this file>\n";
  out += "# The example plugin does not set process-level variables; apply nccl.env's NCCL_* settings too.\n";
  out += "# collective_type,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks,numPipeOps,regBuff\n";
  for (std::size_t i = 0; i < profile.rules.size(); ++i) {
    const ProfileRule& r = profile.rules[i];
    int channels = r.channels > 0 ? r.channels : -1;
    if (r.channels == 0 && i < observed_channels.size() && observed_channels[i] > 0) channels = observed_channels[i];
    out += std::string(profile_collective_name(r.collective)) + "," + std::to_string(r.min_bytes) + "," +
           std::to_string(r.max_bytes) + "," + std::string(to_string(r.algorithm)) + "," +
           std::string(to_string(r.protocol)) + "," + std::to_string(channels) + "," +
           std::to_string(r.nnodes) + "," + std::to_string(r.nranks) + ",-1,-1\n";
  }
  return out;
}

}  // namespace cctune::tuner
