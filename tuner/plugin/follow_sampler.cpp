#include "tuner/plugin/follow_sampler.hpp"

namespace cctune::tuner {

FollowSampler::FollowSampler(std::uint64_t seed) noexcept : state_(seed ? seed : 0x9e3779b97f4a7c15ull) {}

std::uint64_t FollowSampler::draw_gap(std::uint64_t every) noexcept {
  // xorshift64*: plenty for spreading samples, and a few instructions.
  state_ ^= state_ >> 12;
  state_ ^= state_ << 25;
  state_ ^= state_ >> 27;
  const std::uint64_t r = state_ * 0x2545f4914f6cdd1dull;
  return 1 + (r >> 11) % (2 * every - 1);
}

bool FollowSampler::next(std::uint64_t every, std::uint64_t min_gap_ns, std::uint64_t (*now_ns)()) noexcept {
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
