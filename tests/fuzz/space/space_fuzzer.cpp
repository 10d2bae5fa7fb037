// libFuzzer target for search-space files (`sweep --space FILE`). Every input either parses
// or raises cctune::Error; a parsed space must also plan without anything else escaping.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "tuner/space/plan.hpp"
#include "tuner/space/space.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const cctune::tuner::SearchSpace space = cctune::tuner::parse_space(text, "fuzz.json");
    cctune::tuner::SpaceContext context;
    context.nranks = 8;
    context.nnodes = 1;
    (void)cctune::tuner::plan_space(space, context);
  } catch (const cctune::Error&) {
  }
  return 0;
}
