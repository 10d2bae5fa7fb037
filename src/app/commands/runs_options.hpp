#pragma once
// The runs `cctune compare` and `cctune report` read: results files (or sweep directories) and
// the labels to show them by, registered and loaded in one place so both commands take them
// alike.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "app/report/matching.hpp"

namespace cctune::app {

struct RunsArgs {
  std::vector<std::string> paths;   // results.json files or sweep output directories
  std::vector<std::string> labels;  // --labels: one per file or one per config group
};

// Adds the positional `results` (described by `help`) and --labels.
void add_runs_options(CLI::App& cmd, RunsArgs& runs, const std::string& help);

// The runs read and matched; `allow_disjoint` shows runs with nothing in common side by side
// instead of refusing them (the report's choice).
report::Comparison compare_runs(const RunsArgs& runs, bool allow_disjoint);

}  // namespace cctune::app
