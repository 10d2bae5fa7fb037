#pragma once
// How a batch of host-side (MPI) operations is timed, written against plain callables so that
// tests can check it without MPI:
//  - Wall: one clock read before and one after n back-to-back operations; nothing else runs
//    inside, except a stop check every `check_every` operations.
//  - PerOp: a clock read around each operation.
// `before_launch` runs before each operation, outside its clock (a test build's late launch,
// injected through MpiBackend::set_before_launch); production passes nothing.
// The stop check (`stop_agreed`) is collective: every rank calls it after the same operation
// (check_every is agreed), and it answers the same everywhere, so ranks leave together.
#include <algorithm>

#include "collectives/backend.hpp"

namespace cctune::mpi_detail {

template <class Op, class StopAgreed, class Clock, class BeforeLaunch>
BatchTiming time_host_batch(const BatchRequest& batch, Op&& op, StopAgreed&& stop_agreed, Clock&& clock_us,
                            BeforeLaunch&& before_launch) {
  BatchTiming timing;
  const int n = std::max(batch.n, 1);
  const bool checks = batch.stop_requested && batch.check_every > 0 && batch.check_every < n;
  const int chunk = checks ? batch.check_every : n;
  const bool per_op = batch.kind == BatchKind::PerOp;
  if (per_op) timing.iter_us.reserve(static_cast<std::size_t>(n));
  const double start = clock_us();
  while (timing.ran < n) {
    const int todo = std::min(chunk, n - timing.ran);
    if (per_op) {
      for (int i = 0; i < todo; ++i) {
        before_launch();
        const double t = clock_us();
        op();
        timing.iter_us.push_back(clock_us() - t);
      }
    } else {
      for (int i = 0; i < todo; ++i) {
        before_launch();
        op();
      }
    }
    timing.ran += todo;
    if (checks && timing.ran < n && stop_agreed()) {
      timing.interrupted = true;
      break;
    }
  }
  timing.wall_us = clock_us() - start;
  return timing;
}

template <class Op, class StopAgreed, class Clock>
BatchTiming time_host_batch(const BatchRequest& batch, Op&& op, StopAgreed&& stop_agreed, Clock&& clock_us) {
  return time_host_batch(batch, op, stop_agreed, clock_us, [] {});
}

}  // namespace cctune::mpi_detail
