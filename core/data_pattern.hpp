#pragma once
// Deterministic inputs for the data check. Values are small integers so sums over up to
// thousands of ranks are exact in every floating type we test (bf16 excepted beyond 256).
// The NCCL kernels compute the same function on the device.
#include <cstdint>

namespace cctune {

// Input element `index` of rank `rank`'s send buffer: an integer in [-8, 8].
constexpr int pattern_value(int rank, std::uint64_t index) {
  return static_cast<int>((index * 7 + static_cast<std::uint64_t>(rank) * 13 + 3) % 17) - 8;
}

// pattern_value folded into [-magnitude, magnitude], each of its 2*magnitude+1 values about
// equally often; for magnitude >= 8 it is pattern_value itself. fp8 sums use it
// (core/data_check_plan.hpp).
constexpr int pattern_value_within(int rank, std::uint64_t index, int magnitude) {
  const int v = pattern_value(rank, index);
  return magnitude >= 8 ? v : (v + 8) % (2 * magnitude + 1) - magnitude;
}

// Sum over ranks 0..nranks-1 of pattern_value(r, index).
constexpr long pattern_sum(int nranks, std::uint64_t index) {
  long s = 0;
  for (int r = 0; r < nranks; ++r) s += pattern_value(r, index);
  return s;
}

}  // namespace cctune
