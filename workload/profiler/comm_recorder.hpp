#pragma once
// One communicator's profiler state: its shape table and a fixed pool of event objects that
// NCCL holds as handles between startEvent and stopEvent. With v5's API events a call is
// counted from its API event, whose handle names the call's shape (an odd number, not a
// pointer: NCCL only passes it back), and a followed call's task event finds that shape through
// it; without them (v4) the task event counts the call. A collective's GPU time is the span
// from its first kernel channel's start to its last channel's stop (globaltimer); channels
// may report after NCCL stopped the collective's host event, so a finished call's span is
// folded into its shape lazily: when its event object is reused, or at a snapshot. Events are
// reused oldest first, so a late channel finds its call still there; a generation number
// turns one that comes after reuse into a no-op instead of a wrong sample.
// One lock per communicator: NCCL's launching thread and its proxy thread share it briefly.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "workload/profiler/call_timeline.hpp"
#include "workload/profiler/group_table.hpp"
#include "workload/profiler/shape_table.hpp"

namespace cctune::tuner {

class CommRecorder;

// CLOCK_MONOTONIC in ns, for versions or events without GPU timestamps, and call issue times.
std::uint64_t host_now_ns() noexcept;

struct ProfEvent {
  enum class Kind : std::uint8_t { Call, KernelChannel };
  CommRecorder* owner = nullptr;  // fixed at construction: handles never move between recorders
  Kind kind = Kind::Call;
  std::uint32_t generation = 0;
  bool queued = true;  // in the free queue
  // Call
  ShapeStats* stats = nullptr;  // nullptr: shape not recorded (table full)
  bool stopped = false, folded = true, timed_on_gpu = true;
  std::uint32_t open_channels = 0;
  std::uint64_t span_start_ns = 0, span_stop_ns = 0;  // 0: none yet
  // Kernel channel
  ProfEvent* parent = nullptr;
  std::uint32_t parent_generation = 0;
  std::uint64_t channel_start_ns = 0, channel_stop_ns = 0;
  bool channel_on_gpu = true;
};

struct CallInfo {
  ShapeKey key;
  int algo = -1, proto = -1, channels = 0;  // as NCCL applied them; -1: not given
};

struct ThreadState;

// Aligned so that what every call reads (serial_, last_caller_) shares one cache line.
class alignas(64) CommRecorder {
 public:
  static constexpr std::size_t default_event_pool = 4096;
  CommRecorder(std::uint64_t comm_hash, int nranks, int nnodes, int rank, int* activation_mask,
               std::size_t shape_capacity = ShapeTable::default_capacity, std::size_t event_pool = default_event_pool);
  CommRecorder(const CommRecorder&) = delete;
  CommRecorder& operator=(const CommRecorder&) = delete;

  // Whether `handle` is one of this recorder's events (a parent NCCL passes back is checked
  // before it is used).
  bool owns(const void* handle) const noexcept;
  // A call as its API event gives it: counted; the handle for NCCL names its shape (nullptr
  // when the table is full). `stats`: the shape's stats, for CallMemo (never moved).
  void* count_call(const ShapeKey& key, ShapeStats*& stats);
  std::uint64_t serial() const noexcept { return serial_; }
  // A repeated call counted from the thread's memo (no lock): its place in the step timeline.
  // `handle`: the call handle count_call gave its shape.
  void time_repeated_call(const void* handle) noexcept {
    timeline_.record(static_cast<std::uint32_t>((reinterpret_cast<std::uintptr_t>(handle) & 0xffffffffu) >> 1), issue_ns());
  }
  // Issue times into the step timeline (call_timeline.hpp says what they cost); before any call.
  void time_steps(bool yes) noexcept { timeline_.set_timed(yes); }
  // The state of the thread that last called in on this communicator (ThreadState::of_caller).
  std::atomic<ThreadState*>& last_caller() noexcept { return last_caller_; }
  static bool is_call_handle(const void* handle) noexcept { return reinterpret_cast<std::uintptr_t>(handle) & 1u; }
  // A followed call's task event, `parent` its API event's handle: what NCCL applied goes to
  // that shape, and the event follows its kernel channels. nullptr when `parent` is not one of
  // this recorder's call handles or the pool is exhausted.
  ProfEvent* follow_call(const void* parent, int algo, int proto, int channels);
  // A call as v4's task event gives it: counted and followed.
  ProfEvent* start_call(const CallInfo& call);
  // gpu_start_ns 0: the version gives no GPU time; the host's clock stands in.
  ProfEvent* start_kernel_channel(ProfEvent* parent, std::uint64_t gpu_start_ns);
  void kernel_channel_stopped(ProfEvent* channel, std::uint64_t gpu_stop_ns);
  void stop(ProfEvent* event);
  // One issue of a group of this communicator's calls (GroupCollector, at the group's end).
  void add_group(const ShapeKey* members, std::size_t n);
  void count_group_not_recorded();

  // What it recorded so far, as cctune.workload/1 has it (finished calls folded in first), with
  // the step cadence its calls show; `job_steps`: the steps the job says it runs
  // (CCTUNE_WORKLOAD_STEPS).
  workload::Communicator snapshot(std::optional<std::uint64_t> job_steps = std::nullopt);
  void set_activation_mask(int mask) noexcept;
  int* activation_mask_pointer() const noexcept { return activation_mask_; }
  std::uint64_t comm_hash() const noexcept { return comm_hash_; }
  std::size_t shapes();
  std::uint64_t calls_not_recorded();
  std::uint64_t events_dropped();

 private:
  // A timeline shape id as the reasons for no step name it (takes the lock).
  std::string shape_name(std::uint32_t shape);
  // A call's issue time for the timeline: 0 where steps are not timed (no clock read).
  std::uint64_t issue_ns() const noexcept { return timeline_.timed() ? host_now_ns() : 0; }
  ProfEvent* acquire(ProfEvent::Kind kind);
  ProfEvent* start_followed(ShapeStats* stats, int algo, int proto, int channels);
  void release(ProfEvent* e);
  void fold(ProfEvent* call);

  const std::uint64_t serial_;  // tells this recorder's call handles from another's
  std::atomic<ThreadState*> last_caller_{nullptr};
  std::mutex mutex_;
  const std::uint64_t comm_hash_;
  const int nranks_, nnodes_, rank_;
  int* activation_mask_;
  ShapeTable table_;
  GroupTable groups_;
  CallTimeline timeline_;
  std::vector<ProfEvent> pool_;
  std::vector<std::uint32_t> free_;  // a ring of pool indices, oldest released first
  std::size_t free_head_ = 0, free_count_ = 0;
  std::uint64_t events_dropped_ = 0;
};

}  // namespace cctune::tuner
