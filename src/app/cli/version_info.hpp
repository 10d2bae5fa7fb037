#pragma once
// `cctune --version`: cctune's own version, then what it would run with on this host: the
// NCCL and CUDA releases the worker module sees (asked in a child process, so a missing or
// broken CUDA never takes this process down), the MPI library, and where the installed
// pieces (module, tuner plugin, search spaces) were found.
#include <string>

namespace cctune::app {

// Several lines, the first "cctune <version> (<git sha>)". Never throws; whatever is
// missing reads "not found (reason)".
std::string version_text(const std::string& executable);

}  // namespace cctune::app
