#pragma once
// The backend-agnostic measurement loop: warm up, run batches until the stop rule
// (fed identical, rank-aggregated samples on every rank) says enough, then summarise.
#include "collectives/backend.hpp"
#include "collectives/rank_comm.hpp"
#include "core/stopping.hpp"

namespace cctune {

struct MeasureSettings {
  int warmup_iters = 5;
  int batch_iters = 20;  // -n: operations per timed batch, as nccl-tests' iterations
  // batch_us is the median over batches; with three or more, one batch hit by a stall
  // (NCCL connecting channels lazily, seen as ~2 ms gaps on H200) cannot set it.
  int min_batches = 3;
  StopRule stop;
  bool check = false;
};

// Every rank of `comm` calls this with the same spec and settings.
PointResult measure_point(CollectiveBackend& backend, RankComm& comm, const PointSpec& spec,
                          const MeasureSettings& settings);

// Fills the identity fields of a result from its spec (shared by skipped/failed points).
PointResult describe_point(const PointSpec& spec);

}  // namespace cctune
