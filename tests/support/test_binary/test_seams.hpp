#pragma once
// The seams cctune-test fills from test-only environment variables (docs/TESTING.md, "Test
// hooks"): production's cctune has the same seams and leaves them empty.
#include "app/cli/seams.hpp"

namespace cctune::test_binary {

// Reads CCTUNE_TEST_FAULT, CCTUNE_TEST_SLOW_RANK, CCTUNE_TEST_PROBE_STALL and
// CCTUNE_TEST_FAKE_VERSION. Throws a one-line UsageError naming the variable when one is
// malformed.
app::Seams seams_from_environment();

}  // namespace cctune::test_binary
