#include "tuner/selection/ranges.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace cctune::tuner {

std::uint64_t range_boundary(std::uint64_t a, std::uint64_t b) {
  if (b <= a) throw std::invalid_argument("range_boundary needs a < b");
  const long double mid = std::floor(std::sqrt(static_cast<long double>(a) * static_cast<long double>(b)));
  std::uint64_t m = mid >= static_cast<long double>(std::numeric_limits<std::uint64_t>::max())
                        ? std::numeric_limits<std::uint64_t>::max()
                        : static_cast<std::uint64_t>(mid);
  return std::clamp(m, a, b - 1);
}

std::vector<LabelRange> merge_ranges(const std::vector<std::uint64_t>& sizes, const std::vector<int>& labels,
                                     bool extend_edges) {
  if (sizes.size() != labels.size()) throw std::invalid_argument("merge_ranges: sizes and labels differ in length");
  for (std::size_t i = 1; i < sizes.size(); ++i)
    if (sizes[i] <= sizes[i - 1]) throw std::invalid_argument("merge_ranges: sizes must be strictly increasing");
  std::vector<LabelRange> out;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (!out.empty() && out.back().label == labels[i]) {
      out.back().last = i;
      continue;
    }
    LabelRange r;
    r.first = r.last = i;
    r.label = labels[i];
    out.push_back(r);
  }
  for (std::size_t k = 0; k < out.size(); ++k) {
    LabelRange& r = out[k];
    r.min_bytes = k == 0 ? (extend_edges ? 0 : sizes[r.first]) : range_boundary(sizes[r.first - 1], sizes[r.first]) + 1;
    r.max_bytes = k + 1 == out.size() ? (extend_edges ? std::numeric_limits<std::uint64_t>::max() : sizes[r.last])
                                      : range_boundary(sizes[r.last], sizes[r.last + 1]);
  }
  return out;
}

}  // namespace cctune::tuner
