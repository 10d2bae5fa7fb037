#include "workload/profiler/thread_state.hpp"

#include <mutex>
#include <new>

#include "workload/profiler/hot_path.hpp"

namespace cctune::tuner {
namespace {

// Ended threads' states, for later threads. Never freed (thread_state.hpp says why); bounded by
// the most threads that called NCCL at once.
struct FreeStates {
  std::mutex mutex;
  ThreadState* head = nullptr;
};

FreeStates& free_states() {
  static auto* f = new FreeStates;  // never destroyed: threads may end while the process exits
  return *f;
}

ThreadState* adopt() noexcept {
  ThreadState* s = nullptr;
  {
    FreeStates& f = free_states();
    std::lock_guard lock(f.mutex);
    if ((s = f.head)) f.head = s->next_free;
  }
  if (!s) s = new (std::nothrow) ThreadState;
  if (!s) return nullptr;
  s->next_free = nullptr;
  s->memo = CallMemo{};  // a previous owner's calls: checked by serial anyway, but not ours
  s->owner.store(this_thread_pointer(), std::memory_order_relaxed);
  return s;
}

void release(ThreadState* s) noexcept {
  s->owner.store(0, std::memory_order_relaxed);
  FreeStates& f = free_states();
  std::lock_guard lock(f.mutex);
  s->next_free = f.head;
  f.head = s;
}

thread_local ThreadState* mine = nullptr;  // trivial: no init guard
thread_local bool ended = false;

// Closes the thread's last group as the thread ends (for the thread that calls exit(), before
// the library's static destructors write the file) and frees its state for a later thread.
struct ExitHook {
  ~ExitHook() {
    ended = true;
    if (!mine) return;
    try {
      mine->group.close();
    } catch (...) {
    }
    release(mine);
    mine = nullptr;
  }
};

}  // namespace

CCTUNE_COLD void ThreadState::forget_after_fork() noexcept {
  ended = true;
  mine = nullptr;
}

CCTUNE_COLD ThreadState* ThreadState::of_this_thread() noexcept {
  if (mine || ended) return mine;
  mine = adopt();
  if (mine) {
    thread_local ExitHook hook;  // constructed here, once: its destructor runs as the thread ends
    (void)hook;
  }
  return mine;
}

}  // namespace cctune::tuner
