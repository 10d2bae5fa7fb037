#pragma once
// The NCCL backend's sweep, supervisor side: every MPI rank supervises worker processes
// (one per GPU it owns) for each config group, and rank 0 feeds their results to its reporters.
// The process model, protocol and timeouts are in docs/RUNTIME.md.
#include <optional>

#include "app/reporter.hpp"
#include "app/session.hpp"
#include "app/sweep_options.hpp"
#include "app/sweep_outcome.hpp"
#include "runtime/groups.hpp"
#include "runtime/query.hpp"

namespace cctune::app {

// Collective. Runs `cctune __worker --query` on every rank: GPUs and NCCL without linking
// them. `required` (--backend nccl): every rank throws the first rank's EnvironmentError
// (e.g. "NCCL backend could not be loaded: ...") when any rank fails. Otherwise (auto):
// nullopt on every rank unless every rank found the module and at least one GPU.
std::optional<runtime::GpuQuery> query_nccl_backend(Session& session, bool required);

// Adds nccl and cuda_runtime/cuda_driver to meta.versions.
void record_versions(const runtime::GpuQuery& q, Meta& meta);

// Where this supervisor's workers run and which NCCL ranks they are; worked out once per job
// (place_workers) and carried from planning into the sweep.
struct Placement {
  std::vector<int> devices;           // the CUDA device of each of this supervisor's workers
  runtime::WorkerLayout layout;       // NCCL ranks of its workers
  std::vector<std::string> host_ids;  // NCCL_HOSTID per worker (--emulate-nodes, --test-shared-gpu)
  int nnodes = 1;
  std::vector<RankPlace> places;      // every NCCL rank's host and device, indexed by NCCL rank
};
// Collective. Throws as run_nccl_sweep does for too many ranks or --gpus above what exists.
Placement place_workers(Session& session, const NcclSettings& ns, int device_count);

struct JobShape {
  int nranks = 0;  // NCCL ranks: every worker of the job
  int nnodes = 1;  // NCCL nodes (hosts, times --emulate-nodes)
};
// Collective. The ranks and nodes the sweep's workers will form; throws as run_nccl_sweep
// does for too many ranks or --gpus above what exists.
JobShape nccl_job_shape(Session& session, const SweepPlan& plan, const runtime::GpuQuery& gpus);

// Collective: one run per config group; `reporters` is empty on ranks other than 0. Throws
// UsageError / EnvironmentError (the same on every rank) for bad inputs found before
// measuring: too many ranks for the GPUs, --gpus above what exists, a size that does not
// fit in GPU memory.
SweepOutcome run_nccl_sweep(Session& session, const SweepPlan& plan, const runtime::GpuQuery& gpus, Reporter& reporters);
// The same with the placement already made (by planning, for the same plan.nccl).
SweepOutcome run_nccl_sweep(Session& session, const SweepPlan& plan, const Placement& place, Reporter& reporters);

}  // namespace cctune::app
