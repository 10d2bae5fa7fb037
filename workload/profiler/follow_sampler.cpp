#include "workload/profiler/follow_sampler.hpp"

#include <atomic>

#include "workload/profiler/hot_path.hpp"

namespace cctune::tuner {

namespace {

std::uint64_t next_seed() noexcept {
  static std::atomic<std::uint64_t> samplers{0};
  return (samplers.fetch_add(1, std::memory_order_relaxed) + 1) * 0x9e3779b97f4a7c15ull;  // never 0
}

}  // namespace

std::uint64_t FollowSampler::draw_gap(std::uint64_t every) noexcept {
  if (state_ == 0) [[unlikely]]
    state_ = next_seed();
  // xorshift64*: plenty for spreading samples, and a few instructions.
  state_ ^= state_ >> 12;
  state_ ^= state_ << 25;
  state_ ^= state_ >> 27;
  const std::uint64_t r = state_ * 0x2545f4914f6cdd1dull;
  return 1 + (r >> 11) % (2 * every - 1);
}

CCTUNE_HOT bool FollowSampler::next(std::uint64_t every, std::uint64_t min_gap_ns, std::uint64_t (*now_ns)()) noexcept {
  if (every <= 1) return true;
  if (left_ == 0) left_ = draw_gap(every);
  if (--left_ != 0) return false;
  left_ = draw_gap(every);
  if (min_gap_ns == 0) return true;
  // A candidate too soon after the last followed call is passed over (not postponed: the next
  // candidate comes at another random point).
  const std::uint64_t now = now_ns();
  if (followed_once_ && now - last_followed_ns_ < min_gap_ns) return false;
  followed_once_ = true;
  last_followed_ns_ = now;
  return true;
}

}  // namespace cctune::tuner
