#include "tuner/search/survivors.hpp"

#include <cmath>

namespace cctune::tuner::search {

std::size_t most_survivors(std::size_t limit, double cap) { return static_cast<std::size_t>(std::ceil(static_cast<double>(limit) * cap)); }

std::vector<std::size_t> survivors(const std::vector<CostInterval>& best_first, std::size_t limit, double cap) {
  std::vector<std::size_t> kept;
  for (std::size_t i = 0; i < best_first.size() && i < limit; ++i) kept.push_back(i);
  if (limit == 0 || best_first.size() <= limit) return kept;
  // The last of the nominal cut, not the last added: a chain of overlaps would walk the whole field.
  const CostInterval& last = best_first[limit - 1];
  const std::size_t most = most_survivors(limit, cap);
  for (std::size_t i = limit; i < best_first.size() && kept.size() < most; ++i)
    if (best_first[i].low < last.high) kept.push_back(i);
  return kept;
}

}  // namespace cctune::tuner::search
