#include "tuner/selection/provenance.hpp"

#include <regex>
#include <tuple>

#include "core/collective_traits.hpp"
#include "core/error.hpp"

namespace cctune::tuner {

std::string nccl_version_of(const Results& results) {
  auto it = results.meta.versions.find("nccl");
  if (it == results.meta.versions.end() || it->second.empty())
    throw UsageError("the results carry no NCCL version (meta.versions.nccl): a profile steers NCCL and must come from "
                     "NCCL measurements",
                     "run `cctune sweep --backend nccl` on the GPU nodes and tune its results.json");
  std::smatch m;
  static const std::regex version(R"((\d+)\.(\d+)\.(\d+))");
  if (!std::regex_search(it->second, m, version))
    throw UsageError("meta.versions.nccl is \"" + it->second + "\", not MAJOR.MINOR.PATCH",
                     "use results written by `cctune sweep --backend nccl`");
  return m.str(0);
}

// NCCL_HOSTID: set per worker by --emulate-nodes and --test-shared-gpu (the run's env only
// describes it); a deployed profile must never split a host.
bool is_sweep_variable(const std::string& key) {
  return key == "NCCL_TUNER_PLUGIN" || key == "CCTUNE_PROFILE" || key == "NCCL_HOSTID";
}

std::vector<OfferedAlgorithms> offered_algorithms(const Results& results, const std::string& group) {
  std::map<std::tuple<int, int, int>, AlgorithmSet> by_shape;
  for (const RunResult& run : results.runs) {
    if (run.backend != "nccl" || run.group != group) continue;
    for (const PointResult& p : run.points) {
      if (!is_tunable(p.collective) || p.offered_algos.empty()) continue;
      by_shape[{static_cast<int>(p.collective), run.nranks, run.nnodes}] |= p.offered_algos.known;
    }
  }
  std::vector<OfferedAlgorithms> out;
  for (const auto& [shape, set] : by_shape) {
    const auto& [collective, nranks, nnodes] = shape;
    out.push_back({static_cast<Collective>(collective), nranks, nnodes, set});
  }
  return out;
}

std::map<std::string, std::string> baseline_environment(const Results& results, const std::string& group) {
  for (const RunResult& run : results.runs) {
    if (run.backend != "nccl" || run.group != group) continue;
    std::map<std::string, std::string> env;
    for (const auto& [k, v] : run.nccl_env)
      if (!is_sweep_variable(k)) env.emplace(k, v);
    return env;
  }
  return {};
}

}  // namespace cctune::tuner
