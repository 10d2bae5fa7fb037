#include "tuner/profile/rule_table.hpp"

#include <algorithm>

namespace cctune::tuner {

RuleTable RuleTable::for_communicator(const Profile& profile, int nranks, int nnodes) {
  RuleTable table;
  table.offered_.fill(kUnrecordedOffer);
  for (const OfferedAlgorithms& o : profile.provenance.offered) {
    const auto slot = static_cast<std::size_t>(o.collective);
    if (o.nranks == nranks && o.nnodes == nnodes && slot < kSlots) table.offered_[slot] = o.algorithms;
  }
  for (std::size_t i = 0; i < profile.rules.size(); ++i) {
    const ProfileRule& r = profile.rules[i];
    const auto slot = static_cast<std::size_t>(r.collective);
    if (r.nranks != nranks || r.nnodes != nnodes || slot >= kSlots) continue;
    table.by_collective_[slot].push_back(
        {r.min_bytes, r.max_bytes, r.algorithm, r.protocol, r.channels, static_cast<std::uint32_t>(i)});
  }
  for (auto& rules : table.by_collective_)
    std::sort(rules.begin(), rules.end(), [](const RuleChoice& a, const RuleChoice& b) { return a.min_bytes < b.min_bytes; });
  return table;
}

const RuleChoice* RuleTable::find(Collective collective, std::uint64_t n_bytes) const noexcept {
  const auto slot = static_cast<std::size_t>(collective);
  if (slot >= kSlots) return nullptr;
  const std::vector<RuleChoice>& rules = by_collective_[slot];
  // The last rule starting at or below n_bytes is the only one that can hold it.
  auto it = std::upper_bound(rules.begin(), rules.end(), n_bytes,
                             [](std::uint64_t bytes, const RuleChoice& r) { return bytes < r.min_bytes; });
  if (it == rules.begin()) return nullptr;
  --it;
  return n_bytes <= it->max_bytes ? &*it : nullptr;
}

AlgorithmSet RuleTable::offered(Collective collective) const noexcept {
  const auto slot = static_cast<std::size_t>(collective);
  return slot < kSlots ? offered_[slot] : kUnrecordedOffer;
}

std::size_t RuleTable::size() const noexcept {
  std::size_t n = 0;
  for (const auto& rules : by_collective_) n += rules.size();
  return n;
}

}  // namespace cctune::tuner
