#include "app/tune/tune_options.hpp"

#include <algorithm>
#include <filesystem>
#include <set>
#include <utility>

#include "app/run/recorded_space.hpp"
#include "app/run/run_meta.hpp"
#include "app/sweep/confirm_round.hpp"
#include "app/workload_input/workload_input.hpp"
#include "core/error.hpp"
#include "topology/topology_section.hpp"

namespace cctune::app {
namespace {

// The job's weights from a workload file: planned for each (ranks, nodes) shape the results measured.
void weights_from_file(const Results& results, const std::string& results_path, const std::string& path, tuner::TuneOptions& options) {
  const LoadedWorkload w = load_workload(path);
  std::set<std::pair<int, int>> shapes;
  for (const RunResult& run : results.runs) shapes.insert({run.nranks, run.nnodes});
  for (const auto& [nranks, nnodes] : shapes) {
    try {
      const workload::WorkloadPlan plan = workload::plan_workload(w.workload, {nranks, nnodes}, workload::default_workload_sizes);
      const auto weights = job_weights_of(plan);
      options.job_weights.insert(options.job_weights.end(), weights.begin(), weights.end());
      options.job_per_step = plan.per_step;
      options.job_step_us = std::max(options.job_step_us, plan.step_us);
    } catch (const UsageError&) {
      // No shape of the job at this (ranks, nodes): the next measured shape may have some.
    }
  }
  if (options.job_weights.empty())
    throw UsageError("--workload " + path + ": none of its communicators has the ranks and nodes measured in " + results_path,
                     "sweep on an allocation of the job's shape: cctune sweep --workload " + path);
}

}  // namespace

tuner::TuneOptions tune_options_for(const Results& results, const std::string& results_path, const TuneChoices& choices) {
  tuner::TuneOptions options;
  options.min_gain = choices.min_gain;
  options.min_gain_us = choices.min_gain_us;
  options.extend_edges = choices.extend_edges;
  options.results_path = std::filesystem::absolute(results_path).lexically_normal().string();
  options.created = utc_now_iso8601();
  options.cctune_version = CCTUNE_VERSION;
  options.space = space_name_of(results);
  if (const topo::Topology* t = topo::topology_of(results)) options.topology_fingerprint = topo::single_group_fingerprint(*t);
  if (choices.grid) {
    if (!choices.workload_path.empty()) throw UsageError("--grid and --workload contradict each other", "pass one of them");
  } else if (!choices.workload_path.empty()) {
    weights_from_file(results, results_path, choices.workload_path, options);
  } else if (const RecordedWorkload* recorded = recorded_workload_of(results)) {
    options.job_weights = recorded->weights;
    options.job_per_step = recorded->per_step;
    options.job_step_us = recorded->step_us;
  }
  // The sweep's confirmation round, when it ran: handed over by the sweep, else its record.
  options.confirmations = choices.confirmations ? *choices.confirmations : read_confirmations(results_path, results);
  return options;
}

}  // namespace cctune::app
