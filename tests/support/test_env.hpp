#pragma once
// Parsing of the test-only environment variables that both test builds read: the cctune-test
// executable (test_binary/) and the selftest module (selftest/). Production never reads them.
#include <string>

namespace cctune::test_env {

// CCTUNE_TEST_SLOW_RANK=RANK:DELAY_US: that rank launches every operation DELAY_US late.
struct SlowRank {
  int rank = -1;  // -1: off
  double delay_us = 0;
  bool applies_to(int r) const { return rank >= 0 && r == rank; }
};

// The variable's value, "" when unset.
std::string text(const char* name);

// "RANK:DELAY_US" (a rank >= 0, a delay in (0, 1e6] us); empty text: off. Throws a one-line
// UsageError naming the variable when malformed: a typo must not quietly measure a healthy run.
SlowRank parse_slow_rank(const std::string& text);

}  // namespace cctune::test_env
