// libFuzzer target for topology files (`topo --from FILE`, a results file's topology).
// Every input either parses or raises cctune::Error.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "topology/topology_json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const auto topology = cctune::topo::parse_topology(text, "fuzz.json");
    (void)cctune::topo::to_json(topology).dump();
  } catch (const cctune::Error&) {
  }
  return 0;
}
