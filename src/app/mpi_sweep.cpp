#include "app/mpi_sweep.hpp"

#include <algorithm>

#include "app/progress.hpp"
#include "app/signals.hpp"
#include "collectives/mpi/mpi_backend.hpp"
#include "collectives/mpi/mpi_rank_comm.hpp"
#include "collectives/rank_agreement.hpp"
#include "core/sizes.hpp"
#include "core/units.hpp"

namespace cctune::app {

int ranks_on_this_node(Session& session) {
  const auto hosts = session.comm().allgather(session.hostname());
  return static_cast<int>(std::count(hosts.begin(), hosts.end(), session.hostname()));
}

namespace {

PointSpec make_spec(const SweepPlan& plan, Collective c, std::uint64_t size, bool in_place, int nranks) {
  PointSpec s;
  s.collective = c;
  s.dtype = plan.dtype;
  s.op = plan.op;
  s.in_place = in_place;
  // Gather/scatter-like collectives need at least one element per rank; a smaller request
  // is raised to that (and the row shows the size actually moved).
  s.bytes = collective_bytes(c, round_to_granule(size, request_granule(c, plan.dtype, nranks)), plan.dtype, nranks);
  return s;
}

}  // namespace

int run_mpi_sweep(Session& session, const SweepPlan& plan, ResultsSink* sink, const ResumeState* resume) {
  auto& comm = dynamic_cast<MpiRankComm&>(session.comm());
  const int nranks = comm.size();
  MpiBackend backend(comm.handle());

  std::uint64_t max_send = 0, max_recv = 0;
  for (auto c : plan.collectives)
    for (auto s : plan.sizes) {
      const auto b = collective_bytes(c, s, plan.dtype, nranks);
      max_send = std::max(max_send, b.send_count * dtype_size(plan.dtype));
      max_recv = std::max(max_recv, b.recv_count * dtype_size(plan.dtype));
    }
  const int local = ranks_on_this_node(session);
  agree_on_errors(comm, [&] { backend.reserve(max_send, max_recv, local); });

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
  for (auto c : plan.collectives) {
    if (sink) sink->begin_collective(c, "backend mpi, " + std::to_string(nranks) + " ranks, " + to_string(plan.dtype));
    for (auto size : plan.sizes) {
      for (bool in_place : plan.placements) {
        if (comm.any(stop_signal() != 0)) {
          progress.clear();
          return stop_signal() != 0 ? stop_signal() : 15;
        }
        const PointSpec spec = make_spec(plan, c, size, in_place, nranks);
        if (resume && resume->measured(key_of(run, describe_point(spec)))) {
          ++done;  // measured by the interrupted sweep; its result is already in the run
          continue;
        }
        if (comm.rank() == 0)
          progress.update(done, to_string(c) + " " + format_size(spec.bytes.size_bytes) + (in_place ? " in-place" : " out-of-place"));
        PointResult r = measure_point(backend, comm, spec, measure);
        if (r.stop_reason == StopReason::Interrupted) {  // a signal cut the point short: not a measurement
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
