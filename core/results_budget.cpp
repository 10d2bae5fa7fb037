#include "core/results_budget.hpp"

#include "core/json_budget.hpp"

namespace cctune {

void check_results_budget(const std::string& text, const std::string& source, const ResultsBudget& budget) {
  const JsonBudget b{budget.values, budget.containers, {"topology", "net"}, budget.section_values};
  check_json_budget(text, source, b, "a cctune sweep writes", "pass a results.json written by cctune sweep");
}

}  // namespace cctune
