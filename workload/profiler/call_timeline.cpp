#include "workload/profiler/call_timeline.hpp"

namespace cctune::tuner {

std::vector<workload::TimedCall> CallTimeline::ordered() const {
  const std::uint64_t end = total();
  const std::uint64_t begin = end > capacity_ ? end - capacity_ : 0;
  std::vector<workload::TimedCall> out;
  out.reserve(static_cast<std::size_t>(end - begin));
  for (std::uint64_t i = begin; i < end; ++i) {
    const Slot& s = slots_[i % capacity_];
    out.push_back({s.shape.load(std::memory_order_relaxed), s.issue_ns.load(std::memory_order_relaxed)});
  }
  return out;
}

}  // namespace cctune::tuner
