#pragma once
// Everything the profiler half keeps per calling thread, in one thread-local object: the call
// memo, the open group and the follow sampler. One thread-local lookup per event, not one per
// member: in a dlopen'ed library each lookup is a __tls_get_addr call and an init guard, and a
// lone call's two events used to make four of them.
#include "tuner/plugin/call_memo.hpp"
#include "tuner/plugin/follow_sampler.hpp"
#include "tuner/plugin/group_collector.hpp"

namespace cctune::tuner {

struct ThreadState {
  ThreadState() noexcept;
  static ThreadState& get() noexcept;

  CallMemo memo;
  GroupCollector group;  // its destructor records the thread's last group as the thread ends
  FollowSampler sampler;
};

}  // namespace cctune::tuner
