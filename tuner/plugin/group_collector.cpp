#include "tuner/plugin/group_collector.hpp"

#include "tuner/plugin/comm_recorder.hpp"

namespace cctune::tuner {

GroupCollector& GroupCollector::this_thread() noexcept {
  thread_local GroupCollector collector;
  return collector;
}

void* GroupCollector::start() noexcept {
  open_ = true;
  size_ = 0;
  return this;
}

bool GroupCollector::add(const void* group, CommRecorder* recorder, const ShapeKey& key) noexcept {
  if (group != this || !open_ || !recorder) return false;
  if (size_ < members_.size()) members_[size_] = Member{recorder, key};
  ++size_;
  return true;
}

bool GroupCollector::stop(const void* handle) {
  if (handle != this) return false;
  if (!open_) return true;
  open_ = false;
  if (size_ < 2) return true;
  const std::size_t kept = size_ < members_.size() ? size_ : members_.size();
  // Per communicator, in the order their first calls came: a group may span communicators,
  // and each records its own calls. The members are copied per communicator into the
  // collector's scratch buffer (no allocation); a group over the bound is counted (GroupTable
  // refuses it).
  std::array<ShapeKey, workload::max_group_members + 1>& mine = scratch_;
  for (std::size_t i = 0; i < kept; ++i) {
    CommRecorder* r = members_[i].recorder;
    if (!r) continue;
    std::size_t n = 0;
    for (std::size_t k = i; k < kept; ++k)
      if (members_[k].recorder == r) {
        mine[n++] = members_[k].key;
        if (k != i) members_[k].recorder = nullptr;  // taken
      }
    members_[i].recorder = nullptr;
    if (size_ > kept) r->count_group_not_recorded();
    else if (n >= 2) r->add_group(mine.data(), n);  // one call of this communicator's: no group for it
  }
  return true;
}

}  // namespace cctune::tuner
