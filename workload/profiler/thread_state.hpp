#pragma once
// Everything the profiler half keeps per calling thread: the open group, the call memo and the
// follow sampler. Every call's two events need it, so how it is found is most of what a call
// costs (hot_path.hpp). A thread-local lookup in a dlopen'ed library is a __tls_get_addr call and
// several cache lines of the loader's tables; instead each communicator remembers the state of
// the thread that last called in on it (a training loop launches each communicator's calls from
// one thread), and a call that finds its own thread's state there reads no thread-local at all.
//
// Why that is safe: states are never freed. A thread's state goes back to a free list when the
// thread ends (its last group closed first) and is handed to a later thread, so a remembered
// pointer always points at a live state; `owner` says which thread holds it now. A thread's
// thread pointer is unique among live threads, so a state whose owner is the caller's thread
// pointer is the caller's, even where a new thread reuses an ended one's stack and thread pointer.
#include <atomic>
#include <cstdint>

#include "workload/profiler/call_memo.hpp"
#include "workload/profiler/follow_sampler.hpp"
#include "workload/profiler/group_collector.hpp"

namespace cctune::tuner {

struct alignas(64) ThreadState {
  // The calling thread's state: `remembered` (a communicator's last caller) when it is this
  // thread's, else this thread's own, which is then remembered. nullptr when the thread has
  // ended (a call from a thread-local destructor) or no state could be allocated.
  static ThreadState* of_caller(std::atomic<ThreadState*>& remembered) noexcept;
  // The calling thread's own state, through the thread-local (nullptr as above).
  static ThreadState* of_this_thread() noexcept;
  // In a forked child (pthread_atfork), on its one thread: that thread's state is left as it is
  // and the thread counts as ended, so its exit takes no lock a parent thread may have held.
  static void forget_after_fork() noexcept;

  std::atomic<std::uintptr_t> owner{0};  // its thread's thread pointer; 0: on the free list
  GroupCollector group;  // right after `owner`: both and the first member share a line
  CallMemo memo;
  FollowSampler sampler;
  ThreadState* next_free = nullptr;
};

// The calling thread's thread pointer: cheap (one register read), and unique among live threads.
inline std::uintptr_t this_thread_pointer() noexcept { return reinterpret_cast<std::uintptr_t>(__builtin_thread_pointer()); }

// Acquire and release (plain moves on x86): a state remembered by one thread and read by another
// was constructed before it was remembered.
inline ThreadState* ThreadState::of_caller(std::atomic<ThreadState*>& remembered) noexcept {
  ThreadState* s = remembered.load(std::memory_order_acquire);
  if (s && s->owner.load(std::memory_order_relaxed) == this_thread_pointer()) [[likely]]
    return s;
  s = of_this_thread();
  if (s) remembered.store(s, std::memory_order_release);
  return s;
}

}  // namespace cctune::tuner
