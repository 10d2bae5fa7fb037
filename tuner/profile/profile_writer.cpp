#include <nlohmann/json.hpp>

#include "tuner/profile/baseline_json.hpp"
#include "tuner/profile/profile.hpp"

namespace cctune::tuner {

std::string format_profile(const Profile& profile) {
  nlohmann::ordered_json doc;
  doc["schema"] = kProfileSchema;
  const ProfileProvenance& p = profile.provenance;
  doc["provenance"] = {{"nccl_version", p.nccl_version}, {"topology_fingerprint", p.topology_fingerprint},
                       {"space", p.space},               {"created", p.created},
                       {"cctune_version", p.cctune_version}, {"results", p.results}};
  if (!p.offered.empty()) {
    auto& list = doc["provenance"]["offered"] = nlohmann::ordered_json::array();
    for (const OfferedAlgorithms& o : p.offered)
      list.push_back({{"collective", profile_collective_name(o.collective)},
                      {"nranks", o.nranks},
                      {"nnodes", o.nnodes},
                      {"algorithms", algorithm_names(o.algorithms)}});
  }
  if (!p.test_mode.empty()) doc["provenance"]["test_mode"] = p.test_mode;
  if (!p.baseline_env.empty()) {
    auto& env = doc["provenance"]["baseline_env"] = nlohmann::ordered_json::object();
    for (const auto& [key, value] : p.baseline_env) env[key] = value;
  }
  doc["env"] = nlohmann::ordered_json::object();
  for (const auto& [key, value] : profile.env) doc["env"][key] = value;
  doc["rules"] = nlohmann::ordered_json::array();
  for (const ProfileRule& r : profile.rules) {
    nlohmann::ordered_json rule{{"collective", profile_collective_name(r.collective)},
                                {"nranks", r.nranks},
                                {"nnodes", r.nnodes},
                                {"min_bytes", r.min_bytes},
                                {"max_bytes", r.max_bytes},
                                {"algo", to_string(r.algorithm)},
                                {"proto", to_string(r.protocol)},
                                {"channels", r.channels},
                                {"expected_speedup", r.expected_speedup}};
    if (!r.measured_busbw_GBps.empty()) {
      rule["measured_busbw_GBps"] = nlohmann::ordered_json::array();
      for (const auto& [bytes, busbw] : r.measured_busbw_GBps) rule["measured_busbw_GBps"].push_back({bytes, busbw});
    }
    doc["rules"].push_back(std::move(rule));
  }
  if (!profile.measured_baseline.empty()) doc["measured_baseline"] = measured_baseline_json(profile.measured_baseline);
  return doc.dump(2) + "\n";
}

}  // namespace cctune::tuner
