#pragma once
// Where a test build of cctune (tests/support/test_binary, `cctune-test`) changes what
// production never changes: a worker that fails at a chosen point, a late rank, a stalled
// probe peer, a faked library version. Each is a function object; production's main leaves
// every one empty, so the cctune executable reads no test-only variable and takes no test
// branch. docs/TESTING.md ("Test hooks") lists what the test build puts here.
#include <functional>
#include <map>
#include <string>

#include "runtime/worker_loop.hpp"

namespace cctune::app {

struct Seams {
  // In `cctune __worker`, at the start of each point (runtime/worker_loop.hpp).
  runtime::BeforePoint worker_before_point;
  // MPI backend: called with this rank before every operation's launch, outside its clock.
  std::function<void(int rank)> mpi_before_launch;
  // Network probe: called with this rank before it answers as a responder.
  std::function<void(int rank, const std::function<bool()>& stop_requested)> probe_before_respond;
  // Version check: may change what this rank reports before the ranks compare.
  std::function<void(int rank, std::map<std::string, std::string>& versions)> adjust_versions;
};

}  // namespace cctune::app
