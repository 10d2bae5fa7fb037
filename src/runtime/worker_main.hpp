#pragma once
// The body of the hidden `cctune __worker` subcommand. It never initialises MPI.
#include <string>

namespace cctune::runtime {

// `cctune __worker --query`: loads the module, prints one JSON line on stdout:
// {"device_count":N,"nccl_version":"2.28.3","cuda":"..."} or {"error":"...","fix":"..."}.
// Returns the exit code (0, or 3 when the module cannot be loaded).
int run_worker_query(const std::string& executable);

// `cctune __worker`: reads its spec on stdin, speaks the protocol on fd 3, measures the
// group's points. Returns the exit code (0 after "done", 1 after "error").
int run_worker(const std::string& executable);

}  // namespace cctune::runtime
