#pragma once
// The message sizes of a sweep: geometric (-f), arithmetic (-i) or an explicit list.
#include <cstdint>
#include <vector>

namespace cctune {

// The most sizes one sequence may have; checked before any is generated.
inline constexpr std::uint64_t max_size_count = 100000;

struct SizeSequence {
  std::uint64_t min_bytes = 8;
  std::uint64_t max_bytes = 64ull << 20;
  double factor = 2.0;                 // used when step_bytes == 0 and list is empty
  std::uint64_t step_bytes = 0;        // arithmetic progression when non-zero
  std::vector<std::uint64_t> list;     // explicit sizes win over everything else

  // Validates (min <= max, factor > 1, ...) and throws UsageError naming the flag.
  std::vector<std::uint64_t> expand() const;
};

// Rounds a requested size down to what a collective can move: a multiple of
// `granule_bytes` (type size, times nranks for gather/scatter-like collectives), never 0.
std::uint64_t round_to_granule(std::uint64_t bytes, std::uint64_t granule_bytes);

}  // namespace cctune
