#include "app/mpi_sweep.hpp"

#include <algorithm>

#include "app/progress.hpp"
#include "app/signals.hpp"
#include "collectives/mpi/mpi_backend.hpp"
#include "collectives/mpi/mpi_rank_comm.hpp"
#include "collectives/rank_agreement.hpp"
#include "runtime/worker_plan.hpp"

namespace cctune::app {

int ranks_on_this_node(Session& session) {
  const auto hosts = session.comm().allgather(session.hostname());
  return static_cast<int>(std::count(hosts.begin(), hosts.end(), session.hostname()));
}

int run_mpi_sweep(Session& session, const SweepPlan& plan, ResultsSink* sink, const ResumeState* resume) {
  auto& comm = dynamic_cast<MpiRankComm&>(session.comm());
  const int nranks = comm.size();
  MpiBackend backend(comm.handle());

  const std::vector<PointSpec> points = runtime::enumerate_points(plan, nranks);
  const runtime::BufferBytes buffers = runtime::largest_buffers(points);
  const int local = ranks_on_this_node(session);
  agree_on_errors(comm, [&] { backend.reserve(buffers.send, buffers.recv, local); });

  RunResult run;
  run.backend = "mpi";
  run.group = "default";
  run.nranks = nranks;
  if (sink) {
    run.nnodes = static_cast<int>(sink->results().meta.hostnames.size());
    sink->begin_run(resume ? resume->continue_run(run) : run);
  }
  MeasureSettings measure = plan.measure;
  // Batches of ~1 ms amortise the ranks' skew after each aggregation step (PERFORMANCE.md);
  // a signal ends even a long batch, agreed by all ranks inside it.
  measure.min_batch_us = kMpiMinBatchUs;
  measure.min_batches = std::max(measure.min_batches, kMpiMinBatches);
  measure.stop_requested = [] { return stop_signal() != 0; };
  const long total = static_cast<long>(plan.collectives.size() * plan.sizes.size() * plan.placements.size());
  Progress progress(comm.rank() == 0 ? total : 0);
  long done = 0;
  for (std::size_t ci = 0; ci < plan.collectives.size(); ++ci) {
    const Collective c = plan.collectives[ci];
    if (sink) sink->begin_collective(c, "backend mpi, " + std::to_string(nranks) + " ranks, " + to_string(plan.dtype));
    for (std::size_t si = 0; si < plan.sizes.size(); ++si) {
      for (std::size_t pi = 0; pi < plan.placements.size(); ++pi) {
        if (comm.any(stop_signal() != 0)) {
          progress.clear();
          return stop_signal() != 0 ? stop_signal() : 15;
        }
        const PointSpec& spec = points[runtime::point_index(plan, ci, si, 0, pi)];
        if (resume && resume->measured(key_of(run, describe_point(spec)))) {
          ++done;  // measured by the interrupted sweep; its result is already in the run
          continue;
        }
        if (comm.rank() == 0)
          progress.update(done, runtime::describe(spec));
        PointResult r = measure_point(backend, comm, spec, measure);
        if (r.stop_reason == "interrupted") {  // a signal cut the point short: not a measurement
          progress.clear();
          return stop_signal() != 0 ? stop_signal() : 15;
        }
        ++done;
        if (sink) {
          progress.clear();
          sink->add_point(r);
        }
      }
    }
    if (sink) sink->end_collective();
  }
  progress.clear();
  return 0;
}

}  // namespace cctune::app
