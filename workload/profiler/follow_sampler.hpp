#pragma once
// Which calls the profiler half follows (task event, kernel channels): on average one in
// `every`, at random gaps, and at most one per `min_gap_ns` on a thread. Random, because a
// training step repeats a fixed sequence of calls: a fixed gap that divides the step's length
// would follow the same call of it every time, and the other shapes would never get a GPU time.
// Rate-bounded, because a followed call costs the job microseconds (NCCL's task event and
// kernel-channel proxy work): at most one per `min_gap_ns` bounds that cost per second of the
// job, however fast it issues calls. One per calling thread; no lock.
#include <cstdint>

namespace cctune::tuner {

class FollowSampler {
 public:
  // Seeded at its first draw, from a process-wide sequence, so that threads launching in step
  // do not follow the same calls (and a thread-local one needs no constructor).
  constexpr FollowSampler() noexcept = default;
  // Whether the next call is followed. `now_ns` is read only when a gap has run out.
  bool next(std::uint64_t every, std::uint64_t min_gap_ns, std::uint64_t (*now_ns)()) noexcept;

 private:
  std::uint64_t draw_gap(std::uint64_t every) noexcept;  // uniform in [1, 2 * every - 1]: mean `every`

  std::uint64_t state_ = 0;  // 0: not seeded yet
  std::uint64_t left_ = 0;  // calls until the next candidate; 0: draw one
  std::uint64_t last_followed_ns_ = 0;
  bool followed_once_ = false;
};

}  // namespace cctune::tuner
