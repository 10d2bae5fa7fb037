#pragma once
// The last calls of one communicator, their shapes and issue times: what the step cadence
// (workload/step_cadence.hpp) is found from. A ring of fixed capacity written without a lock,
// as a repeated call is counted without one (call_memo.hpp): a slot is claimed with one atomic
// increment and its two fields stored relaxed. A snapshot taken while calls come may read a
// slot half-written; one call's shape or time off is noise the cadence's tail match absorbs.
// Issue times cost a clock read a call (about 20 ns, as much as counting the call), so they are
// taken only where the job's steps are timed (CCTUNE_WORKLOAD_STEP_TIMES=1, as `cctune verify
// --job` sets it); elsewhere the shapes alone give the step's length in calls.
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "workload/step_cadence.hpp"

namespace cctune::tuner {

class CallTimeline {
 public:
  // 16 bytes a call, 128 KiB per communicator: many steps of a DDP job (tens of calls a step),
  // and three of a step of the longest period looked for (kMaxStepCalls).
  static constexpr std::size_t default_capacity = 3 * workload::kMaxStepCalls;
  explicit CallTimeline(std::size_t capacity = default_capacity) : capacity_(capacity), slots_(new Slot[capacity]) {}

  void record(std::uint32_t shape, std::uint64_t issue_ns) noexcept {
    Slot& s = slots_[next_.fetch_add(1, std::memory_order_relaxed) % capacity_];
    s.shape.store(shape, std::memory_order_relaxed);
    s.issue_ns.store(issue_ns, std::memory_order_relaxed);
  }
  std::uint64_t total() const noexcept { return next_.load(std::memory_order_relaxed); }
  bool timed() const noexcept { return timed_; }
  void set_timed(bool timed) noexcept { timed_ = timed; }
  // The calls held, oldest first.
  std::vector<workload::TimedCall> ordered() const;

 private:
  struct Slot {
    std::atomic<std::uint32_t> shape{0};
    std::atomic<std::uint64_t> issue_ns{0};
  };
  const std::size_t capacity_;
  std::unique_ptr<Slot[]> slots_;
  std::atomic<std::uint64_t> next_{0};
  bool timed_ = false;  // set before the first call
};

// A shape id for calls the shape table could not keep: they are calls of the step all the same.
inline constexpr std::uint32_t kUnrecordedShape = 0xffffffffu;

}  // namespace cctune::tuner
