#pragma once
// Memory bound for reading a results file. The byte limit alone does not bound memory: a
// parsed JSON value costs 16 bytes and a container 50-80 more, so 99 MB of `{}` parsed to
// 5.8 GB. Before building the tree, one SAX pass counts the values and refuses a file with
// more than a sweep writes; the free-form sections (topology, net) get a far smaller share.
#include <cstddef>
#include <string>

namespace cctune {

struct ResultsBudget {
  std::size_t values = std::size_t{48} << 20;      // every value: about 0.75 GiB of nodes at most
  std::size_t containers = std::size_t{4} << 20;   // objects and arrays: about 0.3 GiB at most
  std::size_t section_values = std::size_t{1} << 20;  // each of "topology" and "net"
};

// Throws UsageError naming `source` and the count that is too large; does nothing for text
// that is not JSON (the parser reports that).
void check_results_budget(const std::string& text, const std::string& source, const ResultsBudget& budget = {});

}  // namespace cctune
