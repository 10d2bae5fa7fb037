#include "workload/profiler/call_memo.hpp"

#include "workload/profiler/hot_path.hpp"

namespace cctune::tuner {

CCTUNE_HOT const MemoCall* CallMemo::find(const CommRecorder* recorder, std::uint64_t serial, const char* func, const char* dtype,
                               std::size_t count, int root) const noexcept {
  for (const MemoCall& c : calls_)
    if (c.recorder == recorder && c.count == count && c.func == func && c.dtype == dtype && c.root == root && c.serial == serial)
      return &c;
  return nullptr;
}

void CallMemo::remember(const MemoCall& call) noexcept {
  calls_[next_] = call;
  next_ = (next_ + 1) % size;
}

}  // namespace cctune::tuner
