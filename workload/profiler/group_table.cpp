#include "workload/profiler/group_table.hpp"

#include <algorithm>

#include "workload/nccl_names.hpp"

namespace cctune::tuner {

void GroupTable::add(const ShapeKey* members, std::size_t n) {
  if (n < 2) return;
  if (n > workload::max_group_members) {
    ++not_recorded_;
    return;
  }
  std::uint64_t h = n;
  for (std::size_t i = 0; i < n; ++i) h = hash_mix(h, hash_of(members[i]));
  const auto [first, last] = index_.equal_range(h);
  for (auto it = first; it != last; ++it) {
    GroupStats& g = groups_[it->second];
    if (g.members.size() == n && std::equal(g.members.begin(), g.members.end(), members)) {
      ++g.calls;
      return;
    }
  }
  if (groups_.size() >= capacity_) {
    ++not_recorded_;
    return;
  }
  groups_.push_back(GroupStats{std::vector<ShapeKey>(members, members + n), 1});
  index_.emplace(h, static_cast<std::uint32_t>(groups_.size() - 1));
}

void add_groups(workload::Communicator& c, const GroupTable& table, int nranks) {
  c.groups_not_recorded = table.not_recorded();
  for (const GroupStats& g : table.groups()) {
    workload::CallGroup out;
    out.calls = g.calls;
    for (const ShapeKey& k : g.members)
      out.members.push_back(workload::make_shape({k.kind, k.collective}, k.dtype, std::nullopt, k.root, k.count, nranks));
    // A member beyond any real call's bytes would make a file the reader refuses: not recorded.
    if (std::any_of(out.members.begin(), out.members.end(), [](const auto& m) { return m.bytes == 0 && m.count > 0; })) {
      c.groups_not_recorded += g.calls;
      continue;
    }
    c.groups.push_back(std::move(out));
  }
  std::sort(c.groups.begin(), c.groups.end());
}

}  // namespace cctune::tuner
