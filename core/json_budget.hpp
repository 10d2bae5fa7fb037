#pragma once
// Memory bound for reading a JSON document from outside. The byte limit alone does not bound
// memory: a parsed value costs 16 bytes and a container 50-80 more, so 99 MB of `{}` parse to
// 5.8 GB. Before the tree is built, one SAX pass counts values and containers (and the values
// inside named top-level sections) and refuses a document with more than its kind holds; the
// count itself keeps nothing. Each kind of document has its own budget (results_budget.hpp for
// results, app/workload_input/workload_files.hpp for captures and workload.json).
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace cctune {

struct JsonBudget {
  std::size_t values = 0;      // every value, containers included
  std::size_t containers = 0;  // objects and arrays
  // Each top-level key named here may hold at most section_values values.
  std::vector<std::string> sections{};
  std::size_t section_values = 0;
};

// Throws UsageError "<source> holds more than <limit>, more than <kind> (...)" with `fix`;
// does nothing for text that is not JSON (the parser reports that).
void check_json_budget(std::string_view text, const std::string& source, const JsonBudget& budget, const std::string& kind,
                       const std::string& fix);

}  // namespace cctune
