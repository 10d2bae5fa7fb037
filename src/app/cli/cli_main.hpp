#pragma once
// cctune's main: parses the command line, runs the chosen command, and is the only place
// that turns errors into exit codes. The cctune executable calls it with no seams; the test
// build (tests/support/test_binary) with the ones its tests ask for.
#include "app/cli/seams.hpp"

namespace cctune::app {

int run_cctune(int argc, char** argv, Seams seams);

}  // namespace cctune::app
