#pragma once
// Loading the results fixtures of tests/fixtures/results with short, checkout-independent
// names (what the golden files show).
#include <string>
#include <vector>

#include "app/report/matching.hpp"

namespace cctune::app::report::testing {

inline std::string fixture(const std::string& name) { return std::string(CCTUNE_SOURCE_DIR) + "/tests/fixtures/results/" + name; }

inline std::vector<InputFile> load_fixtures(const std::vector<std::string>& names) {
  std::vector<std::string> paths;
  for (const auto& n : names) paths.push_back(fixture(n));
  auto files = load_inputs(paths);
  for (std::size_t i = 0; i < files.size(); ++i) files[i].path = names[i];
  return files;
}

inline Comparison compare_fixtures(const std::vector<std::string>& names, std::vector<std::string> labels = {}, bool allow_disjoint = false) {
  return build_comparison(load_fixtures(names), CompareOptions{std::move(labels), allow_disjoint});
}

}  // namespace cctune::app::report::testing
