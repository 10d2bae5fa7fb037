// diagnose's figures: the suspects with the figures that name them, and what every GPU, node
// and node pair measured, so a dashboard can show the healthy ones beside the suspects.
#include <string>

#include "app/metrics/metrics.hpp"

namespace cctune::app::metrics {
namespace {

namespace dg = cctune::diagnose;
using prometheus::MetricType;

constexpr const char* kSuspects = "cctune_diagnose_suspects";
constexpr const char* kSuspectTime = "cctune_diagnose_suspect_time_seconds";
constexpr const char* kSuspectBw = "cctune_diagnose_suspect_bandwidth_bytes_per_second";
constexpr const char* kGpuTime = "cctune_diagnose_gpu_time_seconds";
constexpr const char* kGpuLast = "cctune_diagnose_gpu_last_arrival_ratio";
constexpr const char* kNodeBusbw = "cctune_diagnose_node_busbw_bytes_per_second";
constexpr const char* kNodeLatency = "cctune_diagnose_node_latency_seconds";
constexpr const char* kPairBusbw = "cctune_diagnose_pair_busbw_bytes_per_second";
constexpr const char* kPairLatency = "cctune_diagnose_pair_latency_seconds";
constexpr const char* kPairProbe = "cctune_diagnose_pair_probe_bytes_per_second";
constexpr const char* kAllBusbw = "cctune_diagnose_all_nodes_busbw_bytes_per_second";
constexpr const char* kInterrupted = "cctune_diagnose_interrupted";

void declare_all(prometheus::Exposition& e) {
  e.declare(kSuspects, MetricType::Gauge, "Suspects diagnose named (0: a healthy cluster)");
  e.declare(kSuspectTime, MetricType::Gauge,
            "A suspect judged on time: its figure (stat=observed) and what it was judged against (median, baseline)");
  e.declare(kSuspectBw, MetricType::Gauge,
            "A suspect judged on bandwidth: its figure (stat=observed) and what it was judged against (median, limit, baseline)");
  e.declare(kGpuTime, MetricType::Gauge, "A GPU's own per-operation time in the intra-node stage");
  e.declare(kGpuLast, MetricType::Gauge, "How often a GPU arrived last at a collective in the intra-node stage (0 to 1)");
  e.declare(kNodeBusbw, MetricType::Gauge, "A node's intra-node collective busbw at the bandwidth size");
  e.declare(kNodeLatency, MetricType::Gauge, "A node's intra-node collective time at the latency size");
  e.declare(kPairBusbw, MetricType::Gauge, "The collective between two nodes: busbw at the bandwidth size");
  e.declare(kPairLatency, MetricType::Gauge, "The collective between two nodes: time at the latency size");
  e.declare(kPairProbe, MetricType::Gauge, "The pair probe's bandwidth between two nodes (RDMA WRITE or TCP)");
  e.declare(kAllBusbw, MetricType::Gauge, "The all-node collective's busbw at the bandwidth size");
  e.declare(kInterrupted, MetricType::Gauge, "1 when a signal stopped diagnose before its last stage");
}

// The document's units, written in base units (seconds, bytes per second).
enum class Unit { Us, GBps };

// Zero means "not known" in the document's figures: such a figure is left out. Microseconds
// are divided (1e-6 is inexact) so that 11 us reads 1.1e-05.
void add_known(prometheus::Exposition& e, const char* name, const prometheus::Labels& labels, double v, Unit unit) {
  if (v > 0) e.add(name, labels, unit == Unit::Us ? v / 1e6 : v * 1e9);
}

void add_suspect(prometheus::Exposition& e, const dg::Suspect& s) {
  const bool time = s.unit == "us";
  const char* name = time ? kSuspectTime : kSuspectBw;
  const Unit unit = time ? Unit::Us : Unit::GBps;
  const prometheus::Labels base = {{"kind", dg::to_string(s.kind)}, {"host", s.host},
                                   {"gpu", s.gpu >= 0 ? std::to_string(s.gpu) : ""}, {"peer", s.peer}};
  const std::pair<const char*, double> stats[] = {{"observed", s.figure}, {"median", s.median}, {"limit", s.limit}, {"baseline", s.baseline}};
  for (const auto& [stat, v] : stats) {
    prometheus::Labels labels = base;
    labels.emplace_back("stat", stat);
    add_known(e, name, labels, v, unit);
  }
}

}  // namespace

prometheus::Exposition diagnose_metrics(const diagnose::DiagnosisDoc& doc) {
  prometheus::Exposition e;
  declare_all(e);
  const prometheus::Labels none;
  e.add(kSuspects, {{"test_mode", doc.test_mode}}, static_cast<double>(doc.diagnosis.suspects.size()));
  e.add(kInterrupted, none, doc.interrupted ? 1 : 0);
  for (const dg::Suspect& s : doc.diagnosis.suspects) add_suspect(e, s);
  for (const auto& g : doc.gpus) {
    const prometheus::Labels labels = {{"host", g.host}, {"gpu", std::to_string(g.gpu)}};
    add_known(e, kGpuTime, labels, g.time_us, Unit::Us);
    e.add(kGpuLast, labels, g.last_fraction);
  }
  for (const auto& n : doc.nodes) {
    add_known(e, kNodeBusbw, {{"host", n.host}}, n.busbw_gbps, Unit::GBps);
    add_known(e, kNodeLatency, {{"host", n.host}}, n.latency_us, Unit::Us);
  }
  for (const auto& p : doc.pairs_measured) {
    const prometheus::Labels labels = {{"host_a", p.host_a}, {"host_b", p.host_b}};
    add_known(e, kPairBusbw, labels, p.busbw_gbps, Unit::GBps);
    add_known(e, kPairLatency, labels, p.latency_us, Unit::Us);
    add_known(e, kPairProbe, labels, p.probe_gbps, Unit::GBps);
  }
  add_known(e, kAllBusbw, none, doc.all_busbw_gbps, Unit::GBps);
  return e;
}

}  // namespace cctune::app::metrics
