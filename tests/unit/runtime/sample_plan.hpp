#pragma once
// The NCCL plan the runtime tests start from, resolved from options as `cctune sweep` does.
#include "app/sweep_options.hpp"

namespace cctune::runtime::samples {

inline SweepPlan sample_nccl_plan() {
  app::SweepArgs a;
  a.min_bytes = "8";
  a.max_bytes = "1K";
  a.collectives = "allreduce,allgather";
  a.iters = 7;
  a.warmup = 3;
  a.check = 1;
  a.backend = "nccl";
  a.transport = "nvlink,pcie";
  a.env_groups = {"big:NCCL_BUFFSIZE=8388608"};
  return app::resolve_sweep(a, true, true);
}

}  // namespace cctune::runtime::samples
