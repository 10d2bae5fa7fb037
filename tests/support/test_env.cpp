#include "test_env.hpp"

#include <cstdlib>
#include <stdexcept>

#include "core/error.hpp"

namespace cctune::test_env {

std::string text(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

SlowRank parse_slow_rank(const std::string& text) {
  SlowRank s;
  if (text.empty()) return s;
  const auto bad = [&] {
    return UsageError("CCTUNE_TEST_SLOW_RANK='" + text + "' is not RANK:DELAY_US (a rank >= 0, a delay in (0, 1e6] us)",
                      "unset it (it is for tests), or set e.g. CCTUNE_TEST_SLOW_RANK=1:200");
  };
  const auto colon = text.find(':');
  if (colon == std::string::npos) throw bad();
  try {
    std::size_t used_rank = 0, used_delay = 0;
    s.rank = std::stoi(text.substr(0, colon), &used_rank);
    s.delay_us = std::stod(text.substr(colon + 1), &used_delay);
    if (used_rank != colon || used_delay != text.size() - colon - 1) throw bad();
  } catch (const std::logic_error&) {
    throw bad();
  }
  if (s.rank < 0 || !(s.delay_us > 0 && s.delay_us <= 1e6)) throw bad();
  return s;
}

}  // namespace cctune::test_env
