// From the figures of a diagnosis document to its suspects, and the checks on a baseline.
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "app/diagnose/diagnosis_doc.hpp"
#include "core/error.hpp"
#include "core/units.hpp"
#include "diagnose/evidence.hpp"

namespace cctune::app::diagnose {
namespace {

namespace dg = cctune::diagnose;

using PairKey = std::pair<std::string, std::string>;
PairKey key_of(const std::string& a, const std::string& b) { return a < b ? PairKey{a, b} : PairKey{b, a}; }

// The baseline's figures, looked up by component.
struct BaselineIndex {
  std::map<std::pair<std::string, int>, double> gpu_us;
  std::map<std::string, double> node_gbps;
  std::map<PairKey, double> probe_gbps, busbw_gbps;
  explicit BaselineIndex(const DiagnosisDoc* b) {
    if (!b) return;
    for (const auto& g : b->gpus) gpu_us[{g.host, g.gpu}] = g.time_us;
    for (const auto& n : b->nodes) node_gbps[n.host] = n.busbw_gbps;
    for (const auto& p : b->pairs_measured) {
      probe_gbps[key_of(p.host_a, p.host_b)] = p.probe_gbps;
      busbw_gbps[key_of(p.host_a, p.host_b)] = p.busbw_gbps;
    }
  }
  template <class K>
  static double find(const std::map<K, double>& m, const K& k) {
    const auto it = m.find(k);
    return it == m.end() ? 0 : it->second;
  }
};

// Adds `more`'s suspects to `into`: one already named there (same component) gains their
// evidence, others join. Evidence is prefixed with the stage it came from.
void merge(dg::Diagnosis& into, dg::Diagnosis more, const std::string& stage) {
  for (dg::Suspect& s : more.suspects) {
    for (std::string& e : s.evidence) e = stage + ": " + e;
    auto same = std::find_if(into.suspects.begin(), into.suspects.end(), [&](const dg::Suspect& t) {
      return std::tie(t.kind, t.host, t.gpu, t.peer) == std::tie(s.kind, s.host, s.gpu, s.peer);
    });
    if (same != into.suspects.end())
      same->evidence.insert(same->evidence.end(), s.evidence.begin(), s.evidence.end());
    else
      into.suspects.push_back(std::move(s));
  }
  for (std::string& n : more.notes) into.notes.push_back(stage + ": " + n);
}

std::string describe_suspect(const dg::Suspect& s) {
  switch (s.kind) {
    case dg::SuspectKind::Gpu: return fmt::format("GPU {} of {}", s.gpu, s.host);
    case dg::SuspectKind::Node: return fmt::format("node {}", s.host);
    case dg::SuspectKind::Nic: return nic_title(s);
    case dg::SuspectKind::Pair: return fmt::format("path {} <-> {}", s.host, s.peer);
  }
  return "?";
}

// A NIC/link suspect names the NIC when every pair probe of its host used the same one there:
// on a node with several NICs, the host alone does not say which link to check.
void name_suspect_nics(dg::Diagnosis& d, const DiagnosisDoc& doc) {
  for (dg::Suspect& s : d.suspects) {
    if (s.kind != dg::SuspectKind::Nic) continue;
    std::set<std::string> used;
    for (const auto& p : doc.pairs_measured) {
      if (p.host_a == s.host && !p.probe_nic_a.empty()) used.insert(p.probe_nic_a);
      if (p.host_b == s.host && !p.probe_nic_b.empty()) used.insert(p.probe_nic_b);
    }
    if (used.size() == 1) s.nic = *used.begin();
  }
}

// A straggler is a GPU suspect of its own: the rank the others wait for at most operations.
dg::Diagnosis straggler_suspects(const DiagnosisDoc& doc) {
  dg::Diagnosis d;
  for (const StragglerResult& s : doc.stragglers) {
    dg::Suspect sus;
    sus.kind = dg::SuspectKind::Gpu;
    sus.host = s.host;
    sus.gpu = s.gpu;
    sus.figure = s.others_wait_us;
    sus.median = s.op_us;
    sus.unit = "us";
    sus.evidence.push_back(fmt::format("straggler: arrives last in {:.0f} % of operations; the other GPUs of {} wait {} us for it "
                                       "per operation of {} us, at {} of {} points",
                                       s.last_pct, s.host, dg::detail::number(s.others_wait_us), dg::detail::number(s.op_us),
                                       s.points_named, s.points_measured));
    d.suspects.push_back(std::move(sus));
  }
  return d;
}

// A path the pair probe measured and blamed nothing on (neither the path nor either node's
// link) is not named from the collective's outlier alone: the probe measures the path itself,
// while the collective adds two hosts and a software stack, and a loaded host slows that by
// 15-25 % between healthy nodes (a CI run, docs/DIAGNOSE.md). It stays in the notes, with its
// figures. A drop below the pair's own baseline is still named.
void spare_paths_the_probe_cleared(dg::Diagnosis& collective, const dg::Observations& probe, const dg::Diagnosis& probed_d,
                                   const dg::Rules& rules) {
  const auto probed = [&](const dg::Suspect& s) {
    return std::any_of(probe.pairs.begin(), probe.pairs.end(),
                       [&](const dg::PairFigure& p) { return key_of(p.host_a, p.host_b) == key_of(s.host, s.peer); });
  };
  const auto probe_blames = [&](const dg::Suspect& s) {
    return std::any_of(probed_d.suspects.begin(), probed_d.suspects.end(), [&](const dg::Suspect& t) {
      if (t.kind == dg::SuspectKind::Nic) return t.host == s.host || t.host == s.peer;
      return t.kind == dg::SuspectKind::Pair && key_of(t.host, t.peer) == key_of(s.host, s.peer);
    });
  };
  std::vector<dg::Suspect> kept;
  for (dg::Suspect& s : collective.suspects) {
    const bool below_baseline = s.baseline > 0 && s.figure < (1 - rules.baseline_drop) * s.baseline;
    if (s.kind != dg::SuspectKind::Pair || below_baseline || !probed(s) || probe_blames(s)) {
      kept.push_back(std::move(s));
      continue;
    }
    collective.notes.push_back(fmt::format(
        "{} <-> {} read {} GB/s against the pairs' median {} GB/s (-{}), but the pair probe found the path between "
        "them at full speed: not named (a loaded host or the collective's own stack, not the path)",
        s.host, s.peer, dg::detail::number(s.figure), dg::detail::number(s.median),
        dg::detail::percent(dg::shortfall(s.figure, s.median, dg::Better::Higher))));
  }
  collective.suspects = std::move(kept);
}

}  // namespace

dg::Diagnosis judge(const DiagnosisDoc& doc, const DiagnosisDoc* baseline, const dg::Rules& rules) {
  const BaselineIndex base(baseline);
  dg::Observations intra;
  for (const auto& g : doc.gpus)
    intra.gpus.push_back({g.host, g.gpu, g.time_us, g.last_fraction, BaselineIndex::find(base.gpu_us, {g.host, g.gpu})});
  for (const auto& n : doc.nodes)
    if (n.busbw_gbps > 0) intra.nodes.push_back({n.host, n.busbw_gbps, n.limit_gbps, BaselineIndex::find(base.node_gbps, n.host)});
  dg::Observations probe, collective;
  for (const auto& p : doc.pairs_measured) {
    const PairKey k = key_of(p.host_a, p.host_b);
    if (p.probe_gbps > 0)
      probe.pairs.push_back({p.host_a, p.host_b, p.probe_gbps, p.probe_limit_gbps, BaselineIndex::find(base.probe_gbps, k)});
    if (p.busbw_gbps > 0)
      collective.pairs.push_back({p.host_a, p.host_b, p.busbw_gbps, p.busbw_limit_gbps, BaselineIndex::find(base.busbw_gbps, k)});
  }
  dg::Diagnosis d;
  merge(d, straggler_suspects(doc), "intra-node");
  merge(d, dg::attribute(intra, rules), "intra-node");
  const dg::Diagnosis probe_d = dg::attribute(probe, rules);
  dg::Diagnosis collective_d = dg::attribute(collective, rules);
  spare_paths_the_probe_cleared(collective_d, probe, probe_d, rules);
  merge(d, probe_d, "pair probe");
  merge(d, std::move(collective_d), "pair " + doc.backend);
  name_suspect_nics(d, doc);
  if (baseline && baseline->all_busbw_gbps > 0 && doc.all_busbw_gbps > 0 &&
      doc.all_busbw_gbps < (1 - rules.baseline_drop) * baseline->all_busbw_gbps)
    d.notes.push_back(fmt::format("all nodes: busbw {:.2f} GB/s is below its baseline {:.2f} GB/s", doc.all_busbw_gbps,
                                  baseline->all_busbw_gbps));
  return d;
}

std::string nic_title(const dg::Suspect& s) {
  return s.nic.empty() ? "NIC/link of " + s.host : fmt::format("NIC/link {} of {}", s.nic, s.host);
}

std::string verdict(const DiagnosisDoc& doc) {
  const auto& suspects = doc.diagnosis.suspects;
  // A job stopped by a signal speaks only for what it measured.
  const std::string head = doc.interrupted ? "interrupted, so far " : "";
  if (suspects.empty()) return head + "no suspects: every component measured is within the rule of its group";
  std::string out = head + fmt::format("{} suspect(s): ", suspects.size());
  for (std::size_t i = 0; i < suspects.size(); ++i) out += (i ? ", " : "") + describe_suspect(suspects[i]);
  return out;
}

void check_same_cluster(const DiagnosisDoc& b, const DiagnosisDoc& now) {
  const auto refuse = [&](const std::string& what) {
    throw UsageError("--baseline " + now.baseline_path + " was measured on another cluster: " + what,
                     "give the diagnosis.json of a known-good run of this same cluster, backend and sizes");
  };
  if (b.hosts.size() != now.hosts.size())
    refuse(fmt::format("{} node(s) there, {} here", b.hosts.size(), now.hosts.size()));
  if (b.gpus_per_node != now.gpus_per_node)
    refuse(fmt::format("{} GPU(s) per node there, {} here", b.gpus_per_node, now.gpus_per_node));
  const std::set<std::string> there(b.hosts.begin(), b.hosts.end()), here(now.hosts.begin(), now.hosts.end());
  for (const std::string& h : here)
    if (!there.count(h)) refuse("host " + h + " is not in it");
  if (b.backend != now.backend) refuse("backend " + b.backend + " there, " + now.backend + " here");
  if (b.latency_bytes != now.latency_bytes || b.bandwidth_bytes != now.bandwidth_bytes)
    refuse(fmt::format("sizes {} and {} there, {} and {} here", format_size(b.latency_bytes), format_size(b.bandwidth_bytes),
                       format_size(now.latency_bytes), format_size(now.bandwidth_bytes)));
}

}  // namespace cctune::app::diagnose
