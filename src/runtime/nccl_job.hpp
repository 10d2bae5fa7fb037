#pragma once
// The one NCCL job runner: every command that measures on NCCL workers (sweep, verify, replay,
// diagnose) places its workers once with an NcclJob, then runs its plan's config groups through
// it; points reach the command's reporters as typed values, as they arrive. Every MPI rank is a
// supervisor of the workers of the GPUs it owns; the process model, protocol and timeouts are
// in docs/RUNTIME.md. google/benchmark's runner is the model: one runner, the caller's reporters.
#include <optional>
#include <string>
#include <vector>

#include "comm/rank_comm.hpp"
#include "core/job_layout.hpp"
#include "core/job_point.hpp"
#include "core/reporter.hpp"
#include "core/results.hpp"
#include "runtime/query.hpp"
#include "runtime/sweep_outcome.hpp"
#include "runtime/sweep_plan.hpp"

namespace cctune::runtime {

// Collective. Runs `cctune __worker --query` on every rank: GPUs and NCCL without linking
// them. `required` (--backend nccl): every rank throws the first rank's EnvironmentError
// (e.g. "NCCL backend could not be loaded: ...") when any rank fails. Otherwise (auto):
// nullopt on every rank unless every rank found the module and at least one GPU.
std::optional<GpuQuery> query_nccl_backend(RankComm& comm, const std::string& executable, bool required);

// Adds nccl and cuda_runtime/cuda_driver to meta.versions.
void record_versions(const GpuQuery& q, Meta& meta);

// Where this supervisor's workers run and which NCCL ranks they are.
struct Placement {
  std::vector<int> devices;           // the CUDA device of each of this supervisor's workers
  WorkerLayout layout;                // NCCL ranks of its workers
  std::vector<std::string> host_ids;  // NCCL_HOSTID per worker (--emulate-nodes, --test-shared-gpu)
  int nnodes = 1;
  std::vector<RankPlace> places;      // every NCCL rank's host and device, indexed by NCCL rank
};

// The shape a job of `hosts` hosts will have by its settings alone, for plans made where no GPU
// is visible (a dry run on a login node): --gpus per host, times the workers per GPU of the
// shared-GPU test mode; nranks 0 when --gpus is not given (unknown).
JobShape planned_shape(const NcclSettings& ns, int hosts);

// Who this supervisor is: the job's layout, its host name and the executable its workers run.
struct Supervisor {
  RankComm& comm;
  const JobLayout& layout;
  std::string hostname;
  std::string executable;  // absolute path of cctune (workers are `cctune __worker`)
};

class NcclJob {
 public:
  // Collective: places this supervisor's workers for `placement` (GPUs per rank, emulated
  // nodes, the shared-GPU test mode) once. Throws the same UsageError/EnvironmentError on
  // every rank for more ranks per node than GPUs, or --gpus above what exists.
  NcclJob(Supervisor who, const NcclSettings& placement, int device_count);

  JobShape shape() const { return {place_.layout.nranks, place_.nnodes}; }
  const Placement& placement() const { return place_; }

  // Collective: one run per config group of `plan` (whose placement settings must be the ones
  // this job was placed with), reported to `reporters` (empty on ranks other than 0).
  // SIGINT/SIGTERM (runtime/signals.hpp) stop it at the next tick, on every rank. Throws UsageError / EnvironmentError (the same on every rank) for bad inputs
  // found before measuring (a root beyond the ranks, a size that does not fit in GPU memory).
  SweepOutcome run(const SweepPlan& plan, Reporter& reporters) const;

 private:
  Supervisor who_;
  // What the placement depends on (--gpus, --emulate-nodes, --test-shared-gpu), to check a plan against.
  int gpus_, emulate_nodes_, test_shared_gpu_;
  Placement place_;
};

}  // namespace cctune::runtime
