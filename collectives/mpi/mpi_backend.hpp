#pragma once
// MPI collectives on host buffers, measured in the supervisor processes themselves:
// all nine collectives (DESIGN.md, MPI backend; their buffer layouts: mpi_layouts.hpp).
// Wall batches are plain back-to-back calls between two MPI_Wtime reads; per-operation
// times come from separate batches (host_batch.hpp). The engine grows wall batches to
// 0.5-1 ms (MeasureSettings::min_batch_us) and passes the stop flag, checked collectively.
#include <mpi.h>

#include <functional>
#include <vector>

#include "collectives/backend.hpp"

namespace cctune {

// Shortest wall batch the MPI sweep asks of the engine (MeasureSettings::min_batch_us), and
// the fewest of them per point (MeasureSettings::min_batches). Growth aims 40 % past the
// floor, so batches end near 0.7 ms: ~200x the ranks' skew after an aggregation step, and
// within the 1 ms a plain loop uses (bench/mpi_allreduce_loop.cpp). A 1 ms floor gave
// 1.4-1.6 ms batches; on a 2-core host shared with compilers over half of those were
// preempted, so the median batch was a preempted one (docs/PERFORMANCE.md, "Against a plain
// MPI loop"). Eleven batches: on a busy host a median of three was moved by one or two
// preempted ones.
inline constexpr double kMpiMinBatchUs = 500;
inline constexpr int kMpiMinBatches = 11;

class MpiBackend : public CollectiveBackend {
 public:
  explicit MpiBackend(MPI_Comm comm);
  std::string name() const override { return "mpi"; }
  std::string unsupported_reason(const PointSpec& spec) const override;
  void prepare(const PointSpec& spec) override;
  BatchTiming run_batch(const BatchRequest& batch) override;
  long count_wrong() override;

  // Allocates for the largest point up front; throws EnvironmentError naming the size and
  // the memory available when `ranks_on_node` ranks of that size would not fit.
  void reserve(std::uint64_t max_send_bytes, std::uint64_t max_recv_bytes, int ranks_on_node);
  // Called before every operation's launch, outside its clock. Production sets none; a test
  // build of cctune makes one rank late this way, so the others really wait inside MPI.
  void set_before_launch(std::function<void()> f) { before_launch_ = std::move(f); }

 private:
  void run_once();
  MPI_Comm comm_;
  int rank_ = 0;
  int size_ = 1;
  PointSpec spec_;
  std::vector<std::byte> send_;
  std::vector<std::byte> recv_;
  std::function<void()> before_launch_;
};

// MemAvailable from /proc/meminfo in bytes (0 when unknown).
std::uint64_t available_host_memory();

}  // namespace cctune
