#include "tuner/plugin/thread_state.hpp"

#include <atomic>
#include <cstdint>

namespace cctune::tuner {
namespace {

// Each thread's sampler gets its own sequence, so that threads launching in step do not follow
// the same calls.
std::uint64_t next_seed() noexcept {
  static std::atomic<std::uint64_t> threads{0};
  return (threads.fetch_add(1, std::memory_order_relaxed) + 1) * 0x9e3779b97f4a7c15ull;
}

}  // namespace

ThreadState::ThreadState() noexcept : sampler(next_seed()) {}

ThreadState& ThreadState::get() noexcept {
  thread_local ThreadState state;
  return state;
}

}  // namespace cctune::tuner
