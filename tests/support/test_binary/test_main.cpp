// cctune-test: the cctune executable with test seams (test_seams.hpp) filled from test-only
// environment variables. Built for the tests only, never installed; tests that need a fault,
// a late rank, a stalled probe peer or a faked version run it instead of cctune.
#include <cstdio>

#include "app/cli/cli_main.hpp"
#include "core/error.hpp"
#include "test_binary/test_seams.hpp"

int main(int argc, char** argv) {
  cctune::app::Seams seams;
  try {
    seams = cctune::test_binary::seams_from_environment();
  } catch (const cctune::UsageError& e) {
    std::fprintf(stderr, "cctune: error: %s\n", e.describe().c_str());
    return cctune::exit_code::usage;
  }
  return cctune::app::run_cctune(argc, argv, std::move(seams));
}
