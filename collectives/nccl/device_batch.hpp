#pragma once
// How a batch of device operations is timed, written against a handful of steps (sync,
// clock, launch, event record) so that a test without a GPU can check what runs inside the
// timed region. NcclBackend supplies the CUDA steps.
//  - Wall: sync, clock, `units` launches, sync, clock: nccl-tests' loop, nothing else inside.
//  - PerOp: an event before every launch and one after the last; per-unit event time / ops.
// A unit is one operation (stream mode) or one graph replay of `ops_per_unit` operations.
#include "collectives/backend.hpp"

namespace cctune::nccl_detail {

// Steps: void sync(); double clock_us(); void launch(); void ensure_events(int count);
//        void record(int event); double elapsed_us(int from_event, int to_event);
template <class Steps>
BatchTiming time_device_batch(Steps& steps, BatchKind kind, int units, int ops_per_unit) {
  BatchTiming timing;
  timing.ran = units * ops_per_unit;
  if (kind == BatchKind::PerOp) steps.ensure_events(units + 1);
  steps.sync();
  if (kind == BatchKind::Wall) {
    const double t0 = steps.clock_us();
    for (int i = 0; i < units; ++i) steps.launch();
    steps.sync();
    timing.wall_us = steps.clock_us() - t0;
    return timing;
  }
  const double t0 = steps.clock_us();
  for (int i = 0; i < units; ++i) {
    steps.record(i);
    steps.launch();
  }
  steps.record(units);
  steps.sync();
  timing.wall_us = steps.clock_us() - t0;
  timing.iter_us.resize(static_cast<std::size_t>(units));
  for (int i = 0; i < units; ++i) timing.iter_us[i] = steps.elapsed_us(i, i + 1) / ops_per_unit;
  return timing;
}

}  // namespace cctune::nccl_detail
