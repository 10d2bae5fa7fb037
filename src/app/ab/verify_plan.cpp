#include "app/ab/verify_plan.hpp"

#include <algorithm>
#include <limits>
#include <set>

#include "core/error.hpp"

namespace cctune::app {
namespace {
constexpr std::uint64_t kOpenEnd = std::numeric_limits<std::uint64_t>::max();
}  // namespace

std::vector<std::uint64_t> sizes_from_rules(const tuner::Profile& p) {
  std::uint64_t lo = kOpenEnd, hi = 0;
  for (const auto& r : p.rules) {
    if (r.min_bytes > 0) lo = std::min(lo, r.min_bytes), hi = std::max(hi, r.min_bytes);
    if (r.max_bytes != kOpenEnd) lo = std::min(lo, r.max_bytes + 1), hi = std::max(hi, r.max_bytes + 1);
  }
  if (hi == 0) lo = 2u << 20, hi = 32u << 20;
  lo = std::max<std::uint64_t>(8, lo / 2);
  hi = std::min<std::uint64_t>(1ull << 30, hi > (1ull << 62) ? hi : hi * 2);
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t s = 8; s <= hi; s *= 2) {
    if (s * 2 <= lo) continue;  // below the lowest boundary's power of two
    bool covered = p.rules.empty();
    for (const auto& r : p.rules) covered = covered || (r.min_bytes <= s && s <= r.max_bytes);
    if (covered) sizes.push_back(s);
  }
  return sizes;
}

PlanOverrides verify_overrides(const tuner::Profile& profile, bool sizes_typed, bool collectives_typed) {
  PlanOverrides o;
  if (!sizes_typed) {
    SizeSequence seq;
    seq.list = sizes_from_rules(profile);
    if (seq.list.empty()) throw UsageError("no size between 8 B and 1 GiB is covered by the profile's rules", "give sizes with -b/-e/-f");
    o.sizes = std::move(seq);
  }
  if (!collectives_typed && !profile.rules.empty()) {
    std::set<Collective> seen;
    std::vector<Collective> list;
    for (const auto& r : profile.rules)
      if (seen.insert(r.collective).second) list.push_back(r.collective);
    o.collectives = std::move(list);
  }
  return o;
}

}  // namespace cctune::app
