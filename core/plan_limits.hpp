#pragma once
// The most points one sweep plan may hold (a worker's plan, a space's plan): counted before
// any point is made, so a small input cannot make planning exhaust memory (issue 24, F6).
#include <cstdint>

namespace cctune {

inline constexpr std::uint64_t max_plan_points = 10'000'000;

}  // namespace cctune
