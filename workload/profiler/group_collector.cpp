#include "workload/profiler/group_collector.hpp"

#include "workload/profiler/comm_recorder.hpp"
#include "workload/profiler/hot_path.hpp"
#include "workload/profiler/workload_sink.hpp"

namespace cctune::tuner {

CCTUNE_HOT void GroupCollector::start(WorkloadSink* sink, bool followed) {
  if (open_ && size_ >= 2) [[unlikely]]
    close();  // a lone call or none: nothing to record
  sink_ = sink;
  open_ = true;
  followed_ = followed;
  size_ = 0;
}

CCTUNE_HOT void GroupCollector::add(CommRecorder* recorder, const ShapeKey& key) noexcept {
  if (!open_ || !recorder) return;
  if (size_ < members_.size()) members_[size_] = Member{recorder, recorder->serial(), key};
  if (size_ != UINT32_MAX) ++size_;
}

CCTUNE_COLD void GroupCollector::close() {
  if (!open_) return;
  open_ = false;
  if (size_ < 2 || !sink_) return;
  const std::size_t kept = size_ < members_.size() ? size_ : members_.size();
  // Per communicator, in the order their first calls came: a group may span communicators,
  // and each records its own calls. The members are copied per communicator into the
  // collector's scratch buffer (no allocation); a group over the bound is counted (GroupTable
  // refuses it).
  for (std::size_t i = 0; i < kept; ++i) {
    CommRecorder* r = members_[i].recorder;
    if (!r) continue;
    const std::uint64_t serial = members_[i].serial;
    std::size_t n = 0;
    for (std::size_t k = i; k < kept; ++k)
      if (members_[k].recorder == r && members_[k].serial == serial) {
        scratch_[n++] = members_[k].key;
        if (k != i) members_[k].recorder = nullptr;  // taken
      }
    members_[i].recorder = nullptr;
    if (size_ > kept || n >= 2) sink_->add_group(r, serial, scratch_.data(), n, size_ > kept);  // one call of its own: no group
  }
}

}  // namespace cctune::tuner
