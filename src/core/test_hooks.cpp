#include "core/test_hooks.hpp"

#include <cstdlib>
#include <stdexcept>

#include "core/error.hpp"

namespace cctune {
namespace {

std::string text_of(const EnvLookup& lookup, const char* name) {
  const char* v = lookup(name);
  return v ? v : "";
}

void read_probe_stall(const std::string& text, TestHooks& h) {
  if (text.empty()) return;
  const auto colon = text.find(':');
  try {
    if (colon == std::string::npos) throw std::invalid_argument("no colon");
    h.probe_stall_rank = std::stoi(text.substr(0, colon));
    h.probe_stall_s = std::stod(text.substr(colon + 1));
  } catch (const std::exception&) {
    throw UsageError("CCTUNE_TEST_PROBE_STALL='" + text + "' is not RANK:SECONDS", "unset it (it is for tests)");
  }
}

// Strict: a typo must not quietly measure a healthy run.
SlowRank read_slow_rank(const std::string& text) {
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

}  // namespace

TestHooks read_test_hooks(const EnvLookup& lookup_arg) {
  const EnvLookup lookup = lookup_arg ? lookup_arg : [](const char* name) { return std::getenv(name); };
  TestHooks h;
  h.fault = text_of(lookup, "CCTUNE_TEST_FAULT");
  h.fake_version = text_of(lookup, "CCTUNE_TEST_FAKE_VERSION");
  read_probe_stall(text_of(lookup, "CCTUNE_TEST_PROBE_STALL"), h);
  h.slow_rank = read_slow_rank(text_of(lookup, "CCTUNE_TEST_SLOW_RANK"));
  return h;
}

}  // namespace cctune
