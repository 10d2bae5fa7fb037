#pragma once
// What the measurement engine needs from a way of running collectives (MPI in the
// supervisor, NCCL in a worker). Backends launch and time; they never format or decide
// when to stop.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/collective.hpp"
#include "core/collective_traits.hpp"
#include "core/results.hpp"

namespace cctune {

// One call of a replayed training step (`cctune replay`, docs/WORKLOAD.md "Replay"): issued
// `repeats` times back to back, out of place, where the step puts it.
struct StepCall {
  Collective collective = Collective::AllReduce;
  DType dtype = DType::Float32;
  ReduceOp op = ReduceOp::Sum;
  int root = 0;
  CollectiveBytes bytes;
  int repeats = 1;
  // -1: issued alone. Otherwise consecutive calls with the same index are one group, issued
  // inside one ncclGroupStart/End, the whole group `repeats` times (every member carries the
  // group's count); step_buffers.hpp places their buffers.
  int group = -1;
};

struct PointSpec {
  Collective collective = Collective::AllReduce;
  DType dtype = DType::Float32;
  ReduceOp op = ReduceOp::Sum;
  bool in_place = false;
  int root = 0;           // broadcast, reduce, gather, scatter: the source or sink rank
  CollectiveBytes bytes;  // derived from the requested size with collective_bytes()
  PointConfig config;
  // NCCL's alltoall, gather and scatter (has_two_impls): the implementation asked for.
  std::optional<P2pImpl> impl;
  // Native asked for where the loaded NCCL lacks it: run grouped (true: `--p2p-impl native`,
  // as nccl-tests falls back) or skip with the reason (false: `both`, whose grouped variant
  // is measured anyway).
  bool impl_fallback = false;
  // Non-empty: one operation of this point is the whole step, these calls in this order on one
  // stream (the fields above then describe its largest call; groups as StepCall says). The
  // data check does not apply.
  std::vector<StepCall> sequence;
  // Its series (one table section) in runtime::enumerate_points' list: the worker's search
  // blocks. Series differ in length once sizes that round to one are measured once.
  std::size_t series = 0;
};

// The point that issues `sequence`'s call `c` alone (its buffers, checks and NCCL call).
inline PointSpec call_point(const PointSpec& step, const StepCall& c) {
  PointSpec p;
  p.collective = c.collective;
  p.dtype = c.dtype;
  p.op = c.op;
  p.root = c.root;
  p.bytes = c.bytes;
  p.config = step.config;
  // NCCL's own call where the loaded NCCL has it, else grouped send/recv (as a job would).
  if (has_two_impls(c.collective)) p.impl = P2pImpl::Native;
  p.impl_fallback = true;
  return p;
}

// Two kinds of batch, never mixed, so that the wall-clock number is nccl-tests' own:
enum class BatchKind {
  // Host wall time around n back-to-back operations and one final synchronisation, with
  // nothing else inside the timed loop (no event records, no per-operation clocks).
  Wall,
  // Each operation timed on its own (NCCL: CUDA events between launches; MPI: MPI_Wtime
  // around each call). wall_us is filled but not used for batch_us.
  PerOp,
};

struct BatchRequest {
  int n = 1;
  BatchKind kind = BatchKind::Wall;
  // Backends whose batches can run long (MPI) ask `stop_requested` every `check_every`
  // operations, collectively (so `check_every` must be the same on every rank; 0: never).
  int check_every = 0;
  const std::function<bool()>* stop_requested = nullptr;
};

struct BatchTiming {
  double wall_us = 0;              // host time around the whole batch, after a sync
  std::vector<double> iter_us;     // PerOp: one per operation run; Wall: empty
  int ran = 0;                     // operations run: n, fewer when a stop request ended it
  bool interrupted = false;        // a stop request (agreed by all ranks) ended the batch
  // `--overlap` (NCCL): a compute load ran beside the batch (the same on every rank).
  bool overlap = false;
  // PerOp batches with the load: the compute's time under load / alone in the batch's window;
  // 0 where the window held too few of its launches to tell.
  double compute_slowdown = 0;
};

// count_wrong()'s answer for a point whose result cannot be checked exactly.
inline constexpr long kNotChecked = -1;

class CollectiveBackend {
 public:
  virtual ~CollectiveBackend() = default;
  virtual std::string name() const = 0;
  // Non-empty when this point cannot run here (dtype the backend lacks, algo NCCL
  // cannot run...): the point is recorded as skipped with this reason.
  virtual std::string unsupported_reason(const PointSpec& spec) const = 0;
  // Allocates (or reuses) buffers and fills them with the deterministic inputs.
  virtual void prepare(const PointSpec& spec) = 0;
  // Runs batch.n back-to-back operations of the prepared point and waits for completion.
  virtual BatchTiming run_batch(const BatchRequest& batch) = 0;
  // Shorthand for a wall batch of n operations (warm-up, the data check, probes).
  BatchTiming run_wall(int n) { return run_batch(BatchRequest{n, BatchKind::Wall}); }
  // Wrong elements in this rank's output after exactly one operation on fresh inputs, or
  // kNotChecked where the point's result has no exact expected value (fp8 sums over many
  // ranks: core/data_check_plan.hpp); every rank then returns kNotChecked.
  virtual long count_wrong() = 0;
  // What actually ran at the last batch (NCCL: algo/proto/channels observed); may be empty.
  virtual PointConfig chosen() const { return {}; }
  // The implementation the prepared point runs (PointSpec::impl after any fallback);
  // nullopt: the backend does not choose one (MPI), and the spec's request is recorded.
  virtual std::optional<P2pImpl> implementation() const { return std::nullopt; }
  // NCCL: the algorithms NCCL's cost table offered for the prepared point, as the tuner
  // plugin saw them; empty where unknown.
  virtual AlgorithmSet offered_algorithms() const { return 0; }
};

}  // namespace cctune
