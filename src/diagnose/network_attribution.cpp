// Stage 2 of the attribution: NICs (or a node's link) and the paths between node pairs.
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "diagnose/evidence.hpp"

namespace cctune::diagnose::detail {
namespace {

struct NodeReach {
  double best_gbps = 0;  // its best pair
  double best_limit = 0;
  int pairs = 0;
};

// A node is only as good as its best pair: a NIC or link at fault caps every pair it is in,
// while one bad path leaves the node's other pairs fast. Judging each node by its best pair
// also keeps two bad nodes from dragging each other's healthy peers down.
std::map<std::string, NodeReach> reach_by_node(const std::vector<PairFigure>& pairs) {
  std::map<std::string, NodeReach> reach;
  for (const PairFigure& p : pairs)
    for (const std::string* host : {&p.host_a, &p.host_b}) {
      NodeReach& r = reach[*host];
      ++r.pairs;
      if (p.gbps > r.best_gbps) {
        r.best_gbps = p.gbps;
        r.best_limit = p.limit_gbps;
      }
    }
  return reach;
}

std::set<std::string> judge_nics(const std::map<std::string, NodeReach>& reach, const Rules& rules, Diagnosis& d) {
  std::vector<double> best;
  for (const auto& [host, r] : reach) best.push_back(r.best_gbps);
  const Typical group = typical_of(best);
  std::set<std::string> named;
  for (const auto& [host, r] : reach) {
    if (!is_slow(r.best_gbps, group, Better::Higher, rules.outlier)) continue;
    Suspect s = make_suspect(SuspectKind::Nic, host, r.best_gbps, group, "GB/s");
    s.limit = r.best_limit;
    s.evidence.push_back(fmt::format(
        "every one of its {} pair(s) is slow: its best reaches {} GB/s against the nodes' median best {} GB/s (-{})",
        r.pairs, number(r.best_gbps), number(group.median), percent(shortfall(r.best_gbps, group.median, Better::Higher))));
    if (auto l = limit_evidence(r.best_gbps, r.best_limit, rules)) s.evidence.push_back(*l);
    named.insert(host);
    d.suspects.push_back(std::move(s));
  }
  if (group.count < kMinGroup)
    d.notes.push_back(fmt::format("network stage: {} node(s): a slow pair cannot be pinned on one of its nodes, "
                                  "so pairs are judged only against their baselines and limits",
                                  group.count));
  return named;
}

}  // namespace

void judge_network(const Observations& obs, const Rules& rules, Diagnosis& d) {
  if (obs.pairs.empty()) return;
  const std::set<std::string> bad_nics = judge_nics(reach_by_node(obs.pairs), rules, d);
  const auto explained = [&](const PairFigure& p) { return bad_nics.count(p.host_a) || bad_nics.count(p.host_b); };
  // The pairs' median comes from pairs between nodes not named, so that a bad node's many slow
  // pairs do not lower the bar for the others.
  std::vector<double> clean, all;
  for (const PairFigure& p : obs.pairs) {
    all.push_back(p.gbps);
    if (!explained(p)) clean.push_back(p.gbps);
  }
  const Typical group = typical_of(clean.size() >= kMinGroup ? clean : all);
  for (const PairFigure& p : obs.pairs) {
    if (explained(p)) continue;
    const bool slow = is_slow(p.gbps, group, Better::Higher, rules.outlier);
    auto baseline = baseline_evidence(p.gbps, p.baseline_gbps, Better::Higher, rules, "GB/s");
    if (!slow && !baseline) continue;
    Suspect s = make_suspect(SuspectKind::Pair, p.host_a, p.gbps, group, "GB/s");
    s.peer = p.host_b;
    s.limit = p.limit_gbps;
    s.baseline = p.baseline_gbps;
    if (slow)
      s.evidence.push_back(fmt::format("{} GB/s between the two against the pairs' median {} GB/s (-{}), while "
                                       "both nodes reach full speed with other peers",
                                       number(p.gbps), number(group.median), percent(shortfall(p.gbps, group.median, Better::Higher))));
    if (baseline) s.evidence.push_back(*baseline);
    if (auto l = limit_evidence(p.gbps, p.limit_gbps, rules)) s.evidence.push_back(*l);
    d.suspects.push_back(std::move(s));
  }
}

}  // namespace cctune::diagnose::detail

namespace cctune::diagnose {

std::vector<std::size_t> pairs_to_confirm(const std::vector<PairFigure>& pairs, const Rules& rules) {
  Observations obs;
  obs.pairs = pairs;
  Diagnosis d;
  detail::judge_network(obs, rules, d);
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const PairFigure& p = pairs[i];
    const bool blamed = std::any_of(d.suspects.begin(), d.suspects.end(), [&](const Suspect& s) {
      if (s.kind == SuspectKind::Nic) return s.host == p.host_a || s.host == p.host_b;
      return s.kind == SuspectKind::Pair && s.host == p.host_a && s.peer == p.host_b;
    });
    if (blamed) out.push_back(i);
  }
  return out;
}

}  // namespace cctune::diagnose
