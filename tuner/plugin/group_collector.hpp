#pragma once
// The calls one thread issues inside one outermost ncclGroupStart/End, from NCCL's v5 API
// events: a group API event, then a collective or p2p API event per call, all on the thread
// that calls NCCL (NCCL keeps the group's handle in its own thread-local state). The collector
// is thread-local too, so a call takes no lock and allocates nothing; when the group ends,
// each communicator that got two or more of its calls records them as one group. A lone call
// is a group of one in NCCL's eyes (every call opens and closes one): nothing is recorded.
#include <array>
#include <cstddef>

#include "tuner/plugin/shape_table.hpp"
#include "workload/workload.hpp"

namespace cctune::tuner {

class CommRecorder;

class GroupCollector {
 public:
  // This thread's collector; its address is the group API event's handle.
  static GroupCollector& this_thread() noexcept;

  void* start() noexcept;
  // A call of the open group (`group` is the handle NCCL passes as the call's parent); false
  // when `group` is not this thread's open group.
  bool add(const void* group, CommRecorder* recorder, const ShapeKey& key) noexcept;
  // Ends the group and records it with its communicators; false when `handle` is not this
  // thread's collector (then it is some other event's handle).
  bool stop(const void* handle);

 private:
  struct Member {
    CommRecorder* recorder = nullptr;
    ShapeKey key;
  };
  bool open_ = false;
  std::size_t size_ = 0;  // calls seen; above the array's size only the count is kept
  std::array<Member, workload::max_group_members + 1> members_{};
  std::array<ShapeKey, workload::max_group_members + 1> scratch_{};
};

}  // namespace cctune::tuner
