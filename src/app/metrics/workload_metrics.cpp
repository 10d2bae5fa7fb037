// A job's own collectives as metrics: how often each call shape runs (per step when the step
// count is known) and, where the capture timed calls, the time per step and its share.
#include <map>
#include <string>

#include "app/metrics/metrics.hpp"

namespace cctune::app::metrics {
namespace {

namespace wl = cctune::workload;
using prometheus::MetricType;

constexpr const char* kSteps = "cctune_workload_steps";
constexpr const char* kCalls = "cctune_workload_calls";
constexpr const char* kCallsPerStep = "cctune_workload_calls_per_step";
constexpr const char* kTime = "cctune_workload_time_seconds";
constexpr const char* kTimePerStep = "cctune_workload_time_seconds_per_step";
constexpr const char* kShare = "cctune_workload_time_share_ratio";

std::string collective_name(const wl::CallShape& s) {
  return s.kind == wl::CallKind::Collective ? to_string(s.collective) : wl::to_string(s.kind);
}

prometheus::Labels comm_labels(const wl::Communicator& c) { return {{"communicator", c.id}, {"nranks", std::to_string(c.nranks)}}; }

prometheus::Labels shape_labels(const wl::Communicator& c, const wl::CallShape& s) {
  prometheus::Labels l = comm_labels(c);
  const bool reduction = s.kind == wl::CallKind::Collective && is_reduction(s.collective);
  l.insert(l.end(), {{"collective", collective_name(s)},
                     {"dtype", to_string(s.dtype)},
                     {"op", reduction && s.op ? to_string(*s.op) : ""},
                     {"root", s.root ? std::to_string(*s.root) : ""},
                     {"count", std::to_string(s.count)},
                     {"bytes", std::to_string(s.bytes)}});
  return l;
}

// Where the durations came from: the flight recorder times calls on the host (enqueue to
// completion); other sources (the profiler) on the GPU.
std::string clock_of(const wl::Workload& w) { return w.format.find("flight-recorder") != std::string::npos ? "host" : "gpu"; }

void declare_all(prometheus::Exposition& e) {
  e.declare(kSteps, MetricType::Gauge, "Training steps the capture covers");
  e.declare(kCalls, MetricType::Gauge, "Calls of one shape in the capture: per rank for collectives, summed over captured ranks for send/recv");
  e.declare(kCallsPerStep, MetricType::Gauge, "Calls of one shape per training step (calls / steps)");
  e.declare(kTime, MetricType::Gauge, "Time in a communicator's calls of one collective over the capture: mean timed duration x calls");
  e.declare(kTimePerStep, MetricType::Gauge, "Time in a communicator's calls of one collective per training step");
  e.declare(kShare, MetricType::Gauge, "Share (0 to 1) of the job's timed collective time spent in a communicator's calls of one collective");
}

}  // namespace

prometheus::Exposition workload_metrics(const workload::Workload& w) {
  prometheus::Exposition e;
  declare_all(e);
  const prometheus::Labels none;
  const double steps = w.steps.value_or(0);
  if (steps > 0) e.add(kSteps, none, steps);
  // Time per (communicator, collective): a shape's mean duration stands for its untimed calls too.
  std::map<std::pair<std::size_t, std::string>, double> time_us;
  double total_us = 0;
  for (std::size_t ci = 0; ci < w.communicators.size(); ++ci) {
    const wl::Communicator& c = w.communicators[ci];
    for (const wl::CallStats& st : c.calls) {
      const prometheus::Labels labels = shape_labels(c, st.shape);
      e.add(kCalls, labels, static_cast<double>(st.calls));
      if (steps > 0) e.add(kCallsPerStep, labels, static_cast<double>(st.calls) / steps);
      if (st.durations.samples == 0) continue;
      const double us = st.durations.sum_us / static_cast<double>(st.durations.samples) * static_cast<double>(st.calls);
      time_us[{ci, collective_name(st.shape)}] += us;
      total_us += us;
    }
  }
  for (const auto& [key, us] : time_us) {
    prometheus::Labels labels = comm_labels(w.communicators[key.first]);
    labels.insert(labels.end(), {{"collective", key.second}, {"clock", clock_of(w)}});
    e.add(kTime, labels, us / 1e6);
    if (steps > 0) e.add(kTimePerStep, labels, us / 1e6 / steps);
    if (total_us > 0) e.add(kShare, labels, us / total_us);
  }
  return e;
}

}  // namespace cctune::app::metrics
