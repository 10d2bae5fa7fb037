#include "runtime/worker_loop.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "collectives/engine.hpp"
#include "core/results_json.hpp"
#include "runtime/halving_loop.hpp"

namespace cctune::runtime {

void maybe_commit_fault(const WorkerSpec& spec, long point) {
  if (!spec.test_fault || spec.test_fault->rank != spec.rank || spec.test_fault->point != point) return;
  const std::string& kind = spec.test_fault->kind;
  std::fprintf(stderr, "cctune worker: test fault '%s' at point %ld (CCTUNE_TEST_FAULT)\n", kind.c_str(), point);
  std::fflush(stderr);
  if (kind == "abort") std::abort();
  if (kind == "exit") ::_exit(7);
  for (;;) ::pause();  // hang: silent until killed
}

void run_worker_points(CollectiveBackend& backend, RankComm& comm, const WorkerSpec& spec, const WorkerPlan& plan,
                       const std::vector<PointSpec>& points, const Emit& emit) {
  if (plan.search == SearchKind::Halving) {
    run_halving_points(backend, comm, spec, plan, points, emit);
    return;
  }
  for (std::size_t i = 0; i < points.size(); ++i) {
    const long index = static_cast<long>(i);
    // The plan's skips are recorded once, in meta.settings.space, not as points.
    if (planned_skip(plan, points[i])) continue;
    emit(progress_message(index));
    maybe_commit_fault(spec, index);
    const PointResult r = measure_point(backend, comm, points[i], plan.measure);
    if (comm.rank() == 0) emit(point_message(index, nlohmann::json(r)));
  }
}

}  // namespace cctune::runtime
