#pragma once
#include <string>
#include <vector>

namespace cctune::app::report {

// Command-line arguments to results files: a directory stands for its results.json (what
// `cctune sweep -o DIR` writes). Throws UsageError naming a directory without one.
std::vector<std::string> resolve_results_paths(const std::vector<std::string>& args);

}  // namespace cctune::app::report
