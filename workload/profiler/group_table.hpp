#pragma once
// The profiler half's per-communicator record of groups: the call shapes a rank issued inside
// one outermost ncclGroupStart/End (two or more), counted per distinct member list. Like the
// shape table it is bounded and allocates only when a new group is first seen; a group that
// finds the table full, or has more members than a workload keeps, is counted, not stored.
// Not thread-safe: the owner (CommRecorder) holds its lock around every call.
#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

#include "workload/profiler/shape_table.hpp"

namespace cctune::tuner {

struct GroupStats {
  std::vector<ShapeKey> members;  // issue order
  std::uint64_t calls = 0;
};

class GroupTable {
 public:
  static constexpr std::size_t default_capacity = 1024;
  explicit GroupTable(std::size_t capacity = default_capacity) : capacity_(capacity) {}

  // One issue of the group `members[0..n)`; fewer than two members is no group.
  void add(const ShapeKey* members, std::size_t n);
  void count_not_recorded() noexcept { ++not_recorded_; }
  std::uint64_t not_recorded() const noexcept { return not_recorded_; }
  const std::deque<GroupStats>& groups() const noexcept { return groups_; }

 private:
  std::size_t capacity_;
  std::deque<GroupStats> groups_;
  std::unordered_multimap<std::uint64_t, std::uint32_t> index_;  // member-list hash -> groups_ position
  std::uint64_t not_recorded_ = 0;
};

// The groups of one communicator as cctune.workload/1 records them (members as call shapes).
void add_groups(workload::Communicator& c, const GroupTable& table, int nranks);

}  // namespace cctune::tuner
