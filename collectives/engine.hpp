#pragma once
// The backend-agnostic measurement loop: warm up, size the batches, then run rounds of one
// wall batch and one per-operation batch until the stop rule (fed identical, rank-aggregated
// samples on every rank) says enough, then summarise. docs/PERFORMANCE.md says what each
// number is.
#include <functional>
#include <optional>

#include "collectives/backend.hpp"
#include "comm/rank_comm.hpp"
#include "core/stopping.hpp"

namespace cctune {

struct MeasureSettings {
  int warmup_iters = 5;
  int batch_iters = 20;  // -n: operations per timed batch, as nccl-tests' iterations
  // batch_us is the median over batches; with three or more, one batch hit by a stall
  // (NCCL connecting channels lazily, seen as ~2 ms gaps on H200) cannot set it.
  int min_batches = 3;
  // Wall batches grow from batch_iters until the slowest rank's batch lasts at least this
  // long (0: exactly batch_iters, as nccl-tests). The MPI backend asks for 0.5 ms
  // (kMpiMinBatchUs): operations of 0.2 us cannot absorb the ranks' skew left by each
  // cross-rank aggregation step.
  double min_batch_us = 0;
  StopRule stop;
  bool check = false;
  // Asked between batches and inside long batches (MPI); when any rank answers true the
  // point ends with stop_reason "interrupted" and is not a measurement (callers drop it).
  std::function<bool()> stop_requested;
};

// Operations per batch for one point, the same on every rank.
struct BatchPlan {
  int wall_ops = 1;     // per wall batch (batch_us)
  int per_op_ops = 1;   // per per-operation batch (iter_us, the stopping rule)
  int check_every = 0;  // operations between stop checks inside a batch (0: none)
};

// No batch may outlast a quarter of the point's time cap (a huge -n stays bounded).
inline double max_batch_us(const MeasureSettings& s) { return s.stop.max_time_s * 1e6 / 4; }
// Stop checks inside a batch come about this often (one tiny collective: no measurable cost).
inline constexpr double kStopCheckEveryUs = 20000;

// Every rank of `comm` calls this with the same spec and settings.
PointResult measure_point(CollectiveBackend& backend, RankComm& comm, const PointSpec& spec,
                          const MeasureSettings& settings);

// Sizes the batches of the prepared point (collective over `comm`): a one-operation probe
// bounds them by max_batch_us; with min_batch_us > 0 the wall batch then grows, as
// google/benchmark grows its iteration count, until the slowest rank's batch lasts that long
// (twice in a row).
// Returns nullopt when a stop request ended a probe batch.
std::optional<BatchPlan> plan_batches(CollectiveBackend& backend, RankComm& comm, const MeasureSettings& settings);

// Fills the identity fields of a result from its spec (shared by skipped/failed points).
PointResult describe_point(const PointSpec& spec);

}  // namespace cctune
