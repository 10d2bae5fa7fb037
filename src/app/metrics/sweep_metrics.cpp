// The sweep's figures per point: one series per run (config group) and point identity, so
// that two groups or two forced configurations of the same size never share a series.
#include <string>

#include "app/metrics/metrics.hpp"
#include "core/files.hpp"

namespace cctune::app::metrics {
namespace {

constexpr const char* kBusbw = "cctune_busbw_bytes_per_second";
constexpr const char* kTime = "cctune_collective_time_seconds";
constexpr const char* kPoints = "cctune_sweep_points";
constexpr const char* kRunOk = "cctune_sweep_run_ok";

prometheus::Labels run_labels(const RunResult& run) {
  return {{"group", run.group}, {"backend", run.backend}, {"nranks", std::to_string(run.nranks)}, {"test_mode", run.test_mode}};
}

prometheus::Labels point_labels(const RunResult& run, const PointResult& p) {
  prometheus::Labels l = run_labels(run);
  l.insert(l.end(), {{"collective", to_string(p.collective)},
                     {"dtype", to_string(p.dtype)},
                     {"op", is_reduction(p.collective) ? to_string(p.op) : ""},
                     {"placement", p.in_place ? "in" : "out"},
                     {"root", p.root ? std::to_string(*p.root) : ""},
                     {"bytes", std::to_string(p.size_bytes)},
                     {"algo", std::string(to_string(p.config.algo))},
                     {"proto", std::string(to_string(p.config.proto))},
                     {"channels", p.config.channels > 0 ? std::to_string(p.config.channels) : "auto"},
                     {"graph", p.config.graph ? "true" : ""},
                     {"impl", p.impl ? std::string(to_string_view(*p.impl)) : ""}});
  return l;
}

}  // namespace

prometheus::Exposition sweep_metrics(const Results& results) {
  prometheus::Exposition e;
  using prometheus::MetricType;
  e.declare(kBusbw, MetricType::Gauge, "Bus bandwidth of one collective at one size (nccl-tests' busbw), from the batch time");
  e.declare(kTime, MetricType::Gauge, "Host time per operation of back-to-back collectives, averaged over ranks");
  e.declare(kPoints, MetricType::Gauge, "Points of a config group by status (ok, skipped, failed)");
  e.declare(kRunOk, MetricType::Gauge, "1 when the config group ran to the end, 0 when it failed or was interrupted");
  for (const RunResult& run : results.runs) {
    e.add(kRunOk, run_labels(run), run.status == RunStatus::Ok ? 1 : 0);
    std::size_t counts[3] = {0, 0, 0};
    for (const PointResult& p : run.points) {
      ++counts[static_cast<int>(p.status)];
      if (p.status != PointStatus::Ok) continue;
      const prometheus::Labels labels = point_labels(run, p);
      e.add(kBusbw, labels, p.busbw_GBps * 1e9);
      e.add(kTime, labels, p.batch_us / 1e6);
    }
    for (const PointStatus s : {PointStatus::Ok, PointStatus::Skipped, PointStatus::Failed}) {
      prometheus::Labels labels = run_labels(run);
      labels.emplace_back("status", to_string(s));
      e.add(kPoints, labels, static_cast<double>(counts[static_cast<int>(s)]));
    }
  }
  return e;
}

void write_metrics(const std::string& path, const prometheus::Exposition& e) { write_file_atomically(path, e.text()); }

}  // namespace cctune::app::metrics
