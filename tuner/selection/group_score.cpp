#include "tuner/selection/group_score.hpp"

#include <algorithm>

namespace cctune::tuner {

WeightedTotal total_of(const std::vector<GroupTerm>& terms, double min_gain, double min_gain_us) {
  WeightedTotal t;
  double d_low = 0, d_high = 0, g_low = 0, g_high = 0;
  for (const GroupTerm& term : terms) {
    const double w = term.weight;
    t.default_us += w * term.defaults.time_us;
    t.group_us += w * term.group.time_us;
    d_low += w * std::max(0.0, term.defaults.time_us - term.defaults.halfwidth_us);
    d_high += w * (term.defaults.time_us + term.defaults.halfwidth_us);
    g_low += w * std::max(0.0, term.group.time_us - term.group.halfwidth_us);
    g_high += w * (term.group.time_us + term.group.halfwidth_us);
    // Same test as a rule's, mirrored: the default beats the group beyond noise here.
    if (w > 0 && significantly_faster(term.defaults, term.group, min_gain, min_gain_us))
      t.costs.push_back({term.shape, term.size_bytes, w, w * (term.group.time_us - term.defaults.time_us),
                         term.group.time_us / term.defaults.time_us});
  }
  t.speedup = t.group_us > 0 ? t.default_us / t.group_us : 0;
  t.speedup_low = g_high > 0 ? d_low / g_high : 0;
  t.speedup_high = g_low > 0 ? d_high / g_low : 0;
  return t;
}

bool measured_beside_compute(const std::vector<GroupTerm>& terms) {
  return !terms.empty() &&
         std::all_of(terms.begin(), terms.end(), [](const GroupTerm& t) { return t.defaults.overlap && t.group.overlap; });
}

double collective_speedup_of(const std::vector<GroupTerm>& terms) {
  double defaults = 0, group = 0;
  for (const GroupTerm& term : terms) {
    defaults += term.weight * term.defaults.collective_us();
    group += term.weight * term.group.collective_us();
  }
  return group > 0 ? defaults / group : 0;
}

}  // namespace cctune::tuner
