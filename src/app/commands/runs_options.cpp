#include "app/commands/runs_options.hpp"

#include "app/report/report_files.hpp"

namespace cctune::app {

void add_runs_options(CLI::App& cmd, RunsArgs& runs, const std::string& help) {
  cmd.add_option("results", runs.paths, help)->required()->check(CLI::ExistingPath);
  cmd.add_option("--labels", runs.labels, "comma-separated names, one per file or one per config group")->delimiter(',');
}

report::Comparison compare_runs(const RunsArgs& runs, bool allow_disjoint) {
  return report::build_comparison(report::load_inputs(report::resolve_results_paths(runs.paths)), {runs.labels, allow_disjoint});
}

}  // namespace cctune::app
