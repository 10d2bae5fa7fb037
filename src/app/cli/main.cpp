// cctune: measure and tune collective communication (app/cli/cli_main.hpp). Production has no
// test seams: every one stays empty.
#include "app/cli/cli_main.hpp"

int main(int argc, char** argv) { return cctune::app::run_cctune(argc, argv, {}); }
