#include "diagnose/attribution.hpp"

#include "diagnose/evidence.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

namespace cctune::diagnose {
namespace {

using detail::baseline_evidence;
using detail::limit_evidence;
using detail::make_suspect;
using detail::number;
using detail::percent;

// One field of every item: the figures of a group.
template <class T>
std::vector<double> values_of(const std::vector<T>& items, double T::*field) {
  std::vector<double> v;
  v.reserve(items.size());
  for (const T& item : items) v.push_back(item.*field);
  return v;
}

// Stage 1, per GPU. A node where at least half its GPUs (and two or more) are slow is handed
// to the node stage: one cause (its fabric, its host) is likelier than several bad GPUs.
std::set<std::string> judge_gpus(const Observations& obs, const Rules& rules, Diagnosis& d) {
  const Typical group = typical_of(values_of(obs.gpus, &GpuFigure::time_us));
  struct Flagged {
    const GpuFigure* gpu;
    bool outlier;                      // against the cluster's median
    std::optional<std::string> below;  // against its own baseline
  };
  std::map<std::string, std::vector<Flagged>> slow_by_host;
  std::map<std::string, int> gpus_by_host;
  for (const GpuFigure& g : obs.gpus) {
    ++gpus_by_host[g.host];
    Flagged f{&g, is_slow(g.time_us, group, Better::Lower, rules.outlier),
              baseline_evidence(g.time_us, g.baseline_us, Better::Lower, rules, "us")};
    if (f.outlier || f.below) slow_by_host[g.host].push_back(std::move(f));
  }
  std::set<std::string> node_wide;
  for (const auto& [host, slow] : slow_by_host) {
    if (slow.size() >= 2 && 2 * slow.size() >= static_cast<std::size_t>(gpus_by_host[host])) {
      node_wide.insert(host);
      continue;
    }
    for (const Flagged& f : slow) {
      const GpuFigure& g = *f.gpu;
      Suspect s = make_suspect(SuspectKind::Gpu, g.host, g.time_us, group, "us");
      s.gpu = g.gpu;
      s.baseline = g.baseline_us;
      if (f.outlier)
        s.evidence.push_back(fmt::format("per-operation time {} us against the cluster's median {} us (+{})",
                                         number(g.time_us), number(group.median), percent(shortfall(g.time_us, group.median, Better::Lower))));
      if (g.last_fraction > 0) s.evidence.push_back(fmt::format("arrives last in {} of operations", percent(g.last_fraction)));
      if (f.below) s.evidence.push_back(*f.below);
      d.suspects.push_back(std::move(s));
    }
  }
  if (!obs.gpus.empty() && group.count < kMinGroup)
    d.notes.push_back(fmt::format("GPU stage: {} GPUs, too few to compare with a median", group.count));
  return node_wide;
}

// Stage 1, per node: its GPUs' collective together.
void judge_nodes(const Observations& obs, const Rules& rules, const std::set<std::string>& node_wide, Diagnosis& d) {
  const Typical group = typical_of(values_of(obs.nodes, &NodeFigure::busbw_gbps));
  std::set<std::string> named;
  for (const NodeFigure& n : obs.nodes) {
    const bool slow = is_slow(n.busbw_gbps, group, Better::Higher, rules.outlier);
    auto baseline = baseline_evidence(n.busbw_gbps, n.baseline_gbps, Better::Higher, rules, "GB/s");
    const bool gpus_slow = node_wide.count(n.host) > 0;
    if (!slow && !baseline && !gpus_slow) continue;
    const bool explained = std::any_of(d.suspects.begin(), d.suspects.end(), [&](const Suspect& s) {
      return s.kind == SuspectKind::Gpu && s.host == n.host;
    });
    if (explained) continue;  // its slow GPU already explains a slow node collective
    Suspect s = make_suspect(SuspectKind::Node, n.host, n.busbw_gbps, group, "GB/s");
    s.limit = n.limit_gbps;
    s.baseline = n.baseline_gbps;
    if (slow)
      s.evidence.push_back(fmt::format("intra-node busbw {} GB/s against the cluster's median {} GB/s (-{})",
                                       number(n.busbw_gbps), number(group.median), percent(shortfall(n.busbw_gbps, group.median, Better::Higher))));
    if (gpus_slow) s.evidence.push_back("at least half of its GPUs are slow alike");
    if (baseline) s.evidence.push_back(*baseline);
    if (auto l = limit_evidence(n.busbw_gbps, n.limit_gbps, rules)) s.evidence.push_back(*l);
    named.insert(n.host);
    d.suspects.push_back(std::move(s));
  }
  for (const std::string& host : node_wide)  // GPUs slow, but no node figure to show it
    if (!named.count(host)) {
      Suspect s = make_suspect(SuspectKind::Node, host, 0, group, "GB/s");
      s.evidence.push_back("at least half of its GPUs are slow alike");
      d.suspects.push_back(std::move(s));
    }
  if (!obs.nodes.empty() && group.count < kMinGroup)
    d.notes.push_back(fmt::format("node stage: {} node(s), too few to compare with a median", group.count));
}

}  // namespace

const char* to_string(SuspectKind kind) {
  switch (kind) {
    case SuspectKind::Gpu: return "gpu";
    case SuspectKind::Node: return "node";
    case SuspectKind::Nic: return "nic";
    case SuspectKind::Pair: return "pair";
  }
  return "?";
}

Diagnosis attribute(const Observations& obs, const Rules& rules) {
  Diagnosis d;
  const std::set<std::string> node_wide = judge_gpus(obs, rules, d);
  judge_nodes(obs, rules, node_wide, d);
  detail::judge_network(obs, rules, d);
  if (auto note = detail::cluster_limit_note("intra-node stage", values_of(obs.nodes, &NodeFigure::busbw_gbps),
                                             values_of(obs.nodes, &NodeFigure::limit_gbps), rules))
    d.notes.push_back(*note);
  if (auto note = detail::cluster_limit_note("network stage", values_of(obs.pairs, &PairFigure::gbps),
                                             values_of(obs.pairs, &PairFigure::limit_gbps), rules))
    d.notes.push_back(*note);
  return d;
}

}  // namespace cctune::diagnose
