#include "core/sizes.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "core/error.hpp"
#include "core/units.hpp"

namespace cctune {

std::vector<std::uint64_t> SizeSequence::expand() const {
  if (!list.empty()) {
    if (list.size() > max_size_count)
      throw UsageError("--sizes lists " + std::to_string(list.size()) + " sizes, more than " + std::to_string(max_size_count),
                       "give fewer sizes, or use -b/-e/-f");
    std::vector<std::uint64_t> out = list;
    for (auto s : out)
      if (s == 0) throw UsageError("--sizes contains 0", "every size must be at least 1 byte");
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }
  if (min_bytes == 0) throw UsageError("--min-bytes is 0", "use a minimum of at least 1 byte, e.g. -b 8");
  if (min_bytes > max_bytes)
    throw UsageError("--min-bytes (" + format_size(min_bytes) + ") is larger than --max-bytes (" +
                         format_size(max_bytes) + ")",
                     "swap -b and -e, or raise -e");
  std::vector<std::uint64_t> out;
  if (step_bytes > 0) {
    if ((max_bytes - min_bytes) / step_bytes >= max_size_count)
      throw UsageError("--step-bytes gives more than " + std::to_string(max_size_count) + " sizes", "use a larger step or -f");
    for (std::uint64_t s = min_bytes;; s += step_bytes) {
      out.push_back(s);
      if (max_bytes - s < step_bytes) break;  // the next step would pass max (or wrap around 2^64)
    }
    return out;
  }
  if (!(factor > 1.0)) throw UsageError("--step-factor must be above 1", "use e.g. -f 2");
  // Counted before anything is allocated: a factor of 1.0000001 from 1 B to 1 TB is 2.8e8 sizes.
  const double count = std::log(static_cast<double>(max_bytes) / static_cast<double>(min_bytes)) / std::log(factor) + 1;
  if (!(count <= static_cast<double>(max_size_count))) {
    char factor_text[32];
    std::snprintf(factor_text, sizeof factor_text, "%.9g", factor);
    throw UsageError("sizes from " + format_size(min_bytes) + " to " + format_size(max_bytes) + " by a factor of " + factor_text +
                         " are more than " + std::to_string(max_size_count),
                     "use a larger step factor (-f, or sizes.factor in a space file)");
  }
  double s = static_cast<double>(min_bytes);
  while (s <= static_cast<double>(max_bytes) * (1 + 1e-12)) {
    const auto v = static_cast<std::uint64_t>(std::llround(s));
    if (out.empty() || v != out.back()) out.push_back(v);
    s *= factor;
  }
  return out;
}

std::uint64_t round_to_granule(std::uint64_t bytes, std::uint64_t granule_bytes) {
  if (granule_bytes == 0) return bytes;
  const std::uint64_t r = bytes / granule_bytes * granule_bytes;
  return r == 0 ? granule_bytes : r;
}

}  // namespace cctune
