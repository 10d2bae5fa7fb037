#pragma once
// The calls one thread issues inside one outermost ncclGroupStart/End, from NCCL's v5 API
// events: a group API event as the group starts, then a collective or p2p API event per call,
// all on the thread that calls NCCL. The collector is per thread (ThreadState), so a call takes
// no lock and allocates nothing. It asks NCCL for no handle on the group event: NCCL then sends
// neither the group's two state records nor its stop, three calls into the plugin per group
// fewer. A group is therefore closed when this thread's next group starts, when a communicator
// is destroyed on this thread, or when the thread ends; then each communicator that got two or
// more of its calls records them as one group (a lone call is a group of one in NCCL's eyes:
// nothing is recorded). A communicator destroyed meanwhile on another thread is skipped (the
// sink knows which are live). Not closed by a destructor: the thread's exit hook closes it
// (thread_state.hpp).
#include <array>
#include <cstddef>
#include <cstdint>

#include "workload/profiler/shape_table.hpp"
#include "workload/workload.hpp"

namespace cctune::tuner {

class CommRecorder;
class WorkloadSink;

class GroupCollector {
 public:
  constexpr GroupCollector() noexcept = default;
  GroupCollector(const GroupCollector&) = delete;
  GroupCollector& operator=(const GroupCollector&) = delete;

  // Closes the group before (if any) and opens the next. `followed`: NCCL asked for this
  // group's task events (its calls get handles their task events can name).
  void start(WorkloadSink* sink, bool followed);
  bool followed() const noexcept { return followed_; }
  // A call of the open group; ignored when no group is open.
  void add(CommRecorder* recorder, const ShapeKey& key) noexcept;
  // Records the open group with its live communicators and closes it.
  void close();

 private:
  struct Member {
    CommRecorder* recorder = nullptr;
    std::uint64_t serial = 0;
    ShapeKey key;
  };
  // A lone call touches these and members_[0] only: one cache line (ThreadState aligns it).
  WorkloadSink* sink_ = nullptr;
  std::uint32_t size_ = 0;  // calls seen (saturating); above the array's size only the count is kept
  bool open_ = false, followed_ = false;
  std::array<Member, workload::max_group_members + 1> members_{};
  std::array<ShapeKey, workload::max_group_members + 1> scratch_{};
};

}  // namespace cctune::tuner
