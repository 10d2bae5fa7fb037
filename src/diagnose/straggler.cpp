#include "diagnose/straggler.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "core/statistics.hpp"

namespace cctune::diagnose {
namespace {

// The rank arriving last most often; ties go to the lower rank (any choice would do: the
// rule then needs more than min_last_pct, which two ranks cannot both have).
int most_often_last(const std::vector<double>& last_pct) {
  return static_cast<int>(std::max_element(last_pct.begin(), last_pct.end()) - last_pct.begin());
}

std::vector<double> without(const std::vector<double>& v, int skip) {
  std::vector<double> out;
  for (std::size_t r = 0; r < v.size(); ++r)
    if (static_cast<int>(r) != skip) out.push_back(v[r]);
  return out;
}

std::string place_text(const Straggler& s) {
  std::string text = "rank " + std::to_string(s.rank);
  if (s.host.empty() && s.gpu < 0) return text;
  text += " (";
  if (!s.host.empty()) text += "host " + s.host;
  if (s.gpu >= 0) text += std::string(s.host.empty() ? "" : ", ") + "GPU " + std::to_string(s.gpu);
  return text + ")";
}

}  // namespace

std::optional<Straggler> find_straggler(const PointResult& point, const std::vector<RankPlace>& places,
                                        const StragglerRule& rule) {
  const RankTimings& t = point.ranks;
  const std::size_t n = t.size();
  if (point.status != PointStatus::Ok || n < 2 || t.last_pct.size() != n || t.wait_median_us.size() != n ||
      t.iter_median_us.size() != n)
    return std::nullopt;
  Straggler s;
  s.rank = most_often_last(t.last_pct);
  s.last_pct = t.last_pct[s.rank];
  if (!(s.last_pct > rule.min_last_pct)) return std::nullopt;
  s.others_wait_us = median(without(t.wait_median_us, s.rank));
  s.op_us = median(t.iter_median_us);
  const double floor_us = std::max(rule.min_wait_us, rule.min_wait_fraction * s.op_us);
  if (!(s.others_wait_us >= floor_us)) return std::nullopt;
  if (static_cast<std::size_t>(s.rank) < places.size()) {
    s.host = places[s.rank].host;
    s.gpu = places[s.rank].gpu;
  }
  return s;
}

std::vector<StragglerTally> find_stragglers(const RunResult& run, const StragglerRule& rule) {
  int measured = 0;
  std::map<int, std::vector<Straggler>> named;
  for (const PointResult& p : run.points) {
    if (p.status != PointStatus::Ok || p.ranks.empty()) continue;
    ++measured;
    if (auto s = find_straggler(p, run.places, rule)) named[s->rank].push_back(*s);
  }
  // One noisy point (a preemption on a busy host) must not name a rank for the whole run.
  const int need = std::max(std::min(2, measured), static_cast<int>(std::ceil(0.2 * measured)));
  std::vector<StragglerTally> out;
  for (const auto& [rank, list] : named) {
    if (static_cast<int>(list.size()) < need) continue;
    StragglerTally t;
    t.straggler = list.front();
    std::vector<double> pct, wait, op;
    for (const Straggler& s : list) {
      pct.push_back(s.last_pct);
      wait.push_back(s.others_wait_us);
      op.push_back(s.op_us);
    }
    t.straggler.last_pct = median(pct);
    t.straggler.others_wait_us = median(wait);
    t.straggler.op_us = median(op);
    t.points_named = static_cast<int>(list.size());
    t.points_measured = measured;
    out.push_back(t);
  }
  std::stable_sort(out.begin(), out.end(), [](const StragglerTally& a, const StragglerTally& b) { return a.points_named > b.points_named; });
  return out;
}

std::string describe(const Straggler& s) {
  return place_text(s) + " arrives last in " + std::to_string(static_cast<int>(std::lround(s.last_pct))) + " % of operations";
}

std::string describe(const StragglerTally& t) {
  return describe(t.straggler) + " at " + std::to_string(t.points_named) + " of " + std::to_string(t.points_measured) + " points";
}

}  // namespace cctune::diagnose
