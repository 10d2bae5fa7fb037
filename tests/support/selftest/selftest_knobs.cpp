#include "selftest/selftest_knobs.hpp"

#include <cstdlib>
#include <stdexcept>

#include "core/error.hpp"

namespace cctune::selftest {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

}  // namespace

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

Knobs read_knobs() {
  Knobs k;
  if (const auto v = env("CCTUNE_SELFTEST_GPUS"); !v.empty()) k.gpus = std::atoi(v.c_str());
  if (const auto v = env("CCTUNE_SELFTEST_MEMORY"); !v.empty()) k.memory_bytes = static_cast<std::uint64_t>(std::atoll(v.c_str()));
  if (const auto v = env("CCTUNE_SELFTEST_SLOWDOWN"); !v.empty()) k.slowdown = std::atof(v.c_str());
  k.config_factors = env("CCTUNE_SELFTEST_CONFIG_FACTORS");
  k.init_error = env("CCTUNE_SELFTEST_INIT_ERROR");
  k.slow_rank = parse_slow_rank(env("CCTUNE_TEST_SLOW_RANK"));
  return k;
}

}  // namespace cctune::selftest
