#pragma once
// The body of the hidden `cctune __worker` subcommand. It never initialises MPI.
#include <string>

#include "runtime/worker_loop.hpp"

namespace cctune::runtime {

// `cctune __worker --query`: loads the module, prints one JSON line on stdout:
// {"device_count":N,"nccl_version":"2.28.3","cuda":"..."} or {"error":"...","fix":"..."}.
// Returns the exit code (0, or 3 when the module cannot be loaded).
int run_worker_query(const std::string& executable);

// `cctune __worker --versions` (for `cctune --version`): loads the module and prints one
// JSON line with what it can tell without a GPU: {"module":path,"nccl_version":"2.28.3",
// "cuda":"runtime 13.0, driver 12.8"}, a "nccl_error"/"cuda_error" for a part that failed,
// or {"error":"..."} when the module cannot be loaded. Always returns 0.
int run_worker_versions(const std::string& executable);

// `cctune __worker`: reads its spec on stdin, speaks the protocol on fd 3, measures the
// group's points. Returns the exit code (0 after "done", 1 after "error"). `before_point`:
// see worker_loop.hpp (production passes none).
int run_worker(const std::string& executable, const BeforePoint& before_point = {});

}  // namespace cctune::runtime
