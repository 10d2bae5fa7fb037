#include "app/run/mpi_sweep.hpp"

#include <algorithm>
#include <set>

#include "collectives/mpi/mpi_backend.hpp"
#include "comm/mpi_rank_comm.hpp"
#include "comm/rank_agreement.hpp"
#include "runtime/sections.hpp"
#include "runtime/signals.hpp"
#include "runtime/worker_plan.hpp"

namespace cctune::app {
namespace {

std::string section_context(const PointSpec& spec, int nranks) {
  return "backend mpi, " + std::to_string(nranks) + " ranks" + runtime::section_suffix(runtime::section_of(spec));
}

// Host buffers: no GPU (-1). local_rank counts the lower ranks on the same host.
std::vector<RankPlace> mpi_places(const JobLayout& job) {
  std::vector<RankPlace> places;
  const auto& hosts = job.hosts;
  for (std::size_t r = 0; r < hosts.size(); ++r)
    places.push_back(
        RankPlace{hosts[r], static_cast<int>(std::count(hosts.begin(), hosts.begin() + static_cast<std::ptrdiff_t>(r), hosts[r])), -1});
  return places;
}

}  // namespace

runtime::SweepOutcome run_mpi_sweep(Session& session, const SweepPlan& plan, Reporter& reporters, const ResumeState* resume) {
  auto& comm = dynamic_cast<MpiRankComm&>(session.comm());
  const int nranks = comm.size();
  MpiBackend backend(comm.handle());

  const std::vector<PointSpec> points = runtime::enumerate_points(plan, nranks);
  const runtime::BufferBytes buffers = runtime::largest_buffers(points);
  const JobLayout& job = session.layout();
  const int local = job.ranks_on_node;
  agree_on_errors(comm, [&] { backend.reserve(buffers.send, buffers.recv, local); });

  if (const auto& before = session.seams().mpi_before_launch) backend.set_before_launch([before, rank = comm.rank()] { before(rank); });

  RunResult run;
  run.backend = "mpi";
  run.group = "default";
  run.nranks = nranks;
  run.nnodes = job.nnodes();
  run.places = mpi_places(job);
  runtime::SweepOutcome outcome{.groups = 1};
  reporters.begin_sweep(static_cast<long>(points.size()));
  reporters.begin_run(resume ? resume->continue_run(run) : run);
  MeasureSettings measure = plan.measure;
  // Batches of 0.5-1 ms amortise the ranks' skew after each aggregation step (PERFORMANCE.md);
  // a signal ends even a long batch, agreed by all ranks inside it.
  measure.min_batch_us = kMpiMinBatchUs;
  measure.min_batches = std::max(measure.min_batches, kMpiMinBatches);
  measure.stop_requested = [] { return runtime::stop_signal() != 0; };
  long done = 0;
  // Points come in sections, one per collective, data type, op and root (sections.hpp): one table each.
  for (std::size_t i = 0; i < points.size(); ++i) {
    const PointSpec& spec = points[i];
    if (i == 0 || runtime::section_of(points[i - 1]) != runtime::section_of(spec)) {
      if (i > 0) reporters.end_collective();
      reporters.begin_collective(spec.collective, section_context(spec, nranks));
    }
    if (comm.any(runtime::stop_signal() != 0)) {
      outcome.stop_signal = runtime::agreed_stop_signal();
      return outcome;
    }
    if (resume && resume->measured(key_of(run, describe_point(spec)))) {
      ++done;  // measured by the interrupted sweep; its result is already in the run
      continue;
    }
    reporters.measuring(done, runtime::describe(spec));
    PointResult r = measure_point(backend, comm, spec, measure);
    if (r.stop_reason == StopReason::Interrupted) {  // a signal cut the point short: not a measurement
      outcome.stop_signal = runtime::agreed_stop_signal();
      return outcome;
    }
    ++done;
    reporters.point(r);
  }
  if (!points.empty()) reporters.end_collective();
  return outcome;
}

}  // namespace cctune::app
