// libFuzzer target for results files (report, compare, tune and sweep --resume read files
// anyone may have edited). Passes when every input either parses or raises cctune::Error;
// any other exception, a crash or a sanitizer report is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "core/results_json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const cctune::Results r = cctune::parse_results(text, "fuzz.json");
    (void)nlohmann::json(r).dump();  // what report/compare do next must hold too
  } catch (const cctune::Error&) {
  }
  return 0;
}
