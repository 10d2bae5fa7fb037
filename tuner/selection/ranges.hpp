#pragma once
// Turning per-size choices into byte ranges: adjacent measured sizes with the same choice
// merge, and each measured size stands for the sizes around it up to the geometric
// midpoint with its neighbour (sizes are swept geometrically, so that is "halfway").
#include <cstdint>
#include <vector>

namespace cctune::tuner {

struct LabelRange {
  std::uint64_t min_bytes = 0;  // inclusive
  std::uint64_t max_bytes = 0;  // inclusive
  std::size_t first = 0;        // indices into the sizes given, inclusive
  std::size_t last = 0;
  int label = 0;
};

// The last byte count that belongs to the smaller of two adjacent measured sizes a < b:
// floor(sqrt(a * b)), kept within [a, b - 1].
std::uint64_t range_boundary(std::uint64_t a, std::uint64_t b);

// `sizes` strictly increasing, `labels` the same length (equal labels = same choice).
// Runs of equal labels become one range. With extend_edges the first range starts at 0
// and the last ends at UINT64_MAX; without, they start/end at the first/last size.
// Ranges are disjoint, ordered and, together, contiguous.
std::vector<LabelRange> merge_ranges(const std::vector<std::uint64_t>& sizes, const std::vector<int>& labels,
                                     bool extend_edges);

}  // namespace cctune::tuner
