#pragma once
// What the measurement engine needs from a way of running collectives (MPI in the
// supervisor, NCCL in a worker). Backends launch and time; they never format or decide
// when to stop.
#include <cstdint>
#include <string>
#include <vector>

#include "core/collective.hpp"
#include "core/results.hpp"

namespace cctune {

struct PointSpec {
  Collective collective = Collective::AllReduce;
  DType dtype = DType::Float32;
  ReduceOp op = ReduceOp::Sum;
  bool in_place = false;
  CollectiveBytes bytes;  // derived from the requested size with collective_bytes()
  PointConfig config;
};

struct BatchTiming {
  double wall_us = 0;              // host time around the whole batch, after a sync
  std::vector<double> iter_us;     // one per operation
};

class CollectiveBackend {
 public:
  virtual ~CollectiveBackend() = default;
  virtual std::string name() const = 0;
  // Non-empty when this point cannot run here (dtype the backend lacks, algo NCCL
  // cannot run...): the point is recorded as skipped with this reason.
  virtual std::string unsupported_reason(const PointSpec& spec) const = 0;
  // Allocates (or reuses) buffers and fills them with the deterministic inputs.
  virtual void prepare(const PointSpec& spec) = 0;
  // Runs n back-to-back operations of the prepared point and waits for completion.
  virtual BatchTiming run_batch(int n) = 0;
  // Wrong elements in this rank's output after exactly one operation on fresh inputs.
  virtual long count_wrong() = 0;
  // What actually ran at the last batch (NCCL: algo/proto/channels observed); may be empty.
  virtual PointConfig chosen() const { return {}; }
  // NCCL: the algorithms NCCL's cost table offered for the prepared point (names, NCCL's
  // order), as the tuner plugin saw them; empty where unknown.
  virtual std::vector<std::string> offered_algorithms() const { return {}; }
};

}  // namespace cctune
