#pragma once
// The profiler half's per-communicator record of call shapes: a fixed-capacity open-
// addressing index over stats that are allocated once, at a shape's first call. Later calls
// of a known shape allocate nothing. A shape that finds the table full is counted in
// calls_not_recorded, not stored, so memory stays bounded however many sizes a job uses.
// Not thread-safe: the owner (CommRecorder) holds its lock around every call.
#include <array>
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "core/algo_proto.hpp"
#include "workload/workload.hpp"

namespace cctune::tuner {

// (kind, collective, dtype, root, count): what the profiler's events say of a call. NCCL's
// events do not carry the reduction op.
struct ShapeKey {
  workload::CallKind kind = workload::CallKind::Collective;
  Collective collective = Collective::AllReduce;
  DType dtype = DType::Float32;
  int root = -1;  // rooted collectives only; p2p: -1
  std::uint64_t count = 0;
  bool operator==(const ShapeKey&) const = default;
};

std::uint64_t hash_mix(std::uint64_t h, std::uint64_t v) noexcept;
std::uint64_t hash_of(const ShapeKey& k) noexcept;

// One distinct (algo, proto, channels) NCCL applied; -1: not known (p2p).
struct AppliedCount {
  int algo = -1, proto = -1, channels = 0;
  std::uint64_t calls = 0;
};

struct ShapeStats {
  static constexpr int max_applied = 4;  // more distinct choices for one shape: counted in applied_other
  ShapeKey key;
  // Counted without the recorder's lock on the launch path (CallMemo): written and read atomically.
  std::uint64_t calls = 0;
  std::array<AppliedCount, max_applied> applied{};
  int applied_used = 0;
  std::uint64_t applied_other = 0;
  // Per-call time (ns), from the GPU's globaltimer or, where a version gives none, the host.
  std::uint64_t samples = 0, gpu_samples = 0;
  double sum_ns = 0, min_ns = 0, max_ns = 0;
  std::array<std::uint32_t, workload::duration_buckets> histogram{};

  void count_one() noexcept { __atomic_fetch_add(&calls, 1, __ATOMIC_RELAXED); }
  std::uint64_t call_count() const noexcept { return __atomic_load_n(&calls, __ATOMIC_RELAXED); }
  void add_applied(int algo, int proto, int channels) noexcept;
  void add_duration(std::uint64_t ns, bool from_gpu) noexcept;
};

class ShapeTable {
 public:
  static constexpr std::size_t default_capacity = 4096;
  explicit ShapeTable(std::size_t capacity = default_capacity);

  // One call of `key`: its position (stable: shapes are never removed; the stats are created at
  // the shape's first call, the only allocation), or nullopt when the table is full (the call
  // is then counted as not recorded).
  std::optional<std::size_t> count(const ShapeKey& key);
  std::size_t size() const noexcept { return stats_.size(); }
  std::size_t capacity() const noexcept { return capacity_; }
  std::uint64_t calls_not_recorded() const noexcept { return not_recorded_; }
  void count_not_recorded() noexcept { ++not_recorded_; }
  const std::deque<ShapeStats>& stats() const noexcept { return stats_; }
  ShapeStats& at(std::size_t i) noexcept { return stats_[i]; }

 private:
  std::optional<std::size_t> position(const ShapeKey& key);

  std::size_t capacity_;
  std::vector<std::uint32_t> index_;  // 0: empty; else stats_ position + 1. A power of two, >= twice the capacity
  std::deque<ShapeStats> stats_;      // a deque: references stay valid as it grows
  std::uint64_t not_recorded_ = 0;
};

// The calls of one communicator as cctune.workload/1 records them.
workload::Communicator to_communicator(const ShapeTable& table, std::uint64_t comm_hash, int nranks, int nnodes, int rank);

}  // namespace cctune::tuner
