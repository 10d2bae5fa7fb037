#pragma once
// What `--prometheus FILE` writes for sweep, diagnose and workload (docs/METRICS.md): each
// command's figures as Prometheus families, in base units (seconds, bytes, bytes per second).
// Built from the same values the command's JSON holds, after it was written.
#include <string>

#include "app/diagnose/diagnosis_doc.hpp"
#include "core/prometheus_text.hpp"
#include "core/results.hpp"
#include "workload/workload.hpp"

namespace cctune::app::metrics {

// Per ok point of each run (screening points left out): busbw and per-operation time.
prometheus::Exposition sweep_metrics(const Results& results);
// Suspects with their figures, and the figures of every GPU, node and node pair.
prometheus::Exposition diagnose_metrics(const diagnose::DiagnosisDoc& doc);
// Per communicator and call shape: calls (per step when the step count is known), and time
// per step and share of time where the capture has durations.
prometheus::Exposition workload_metrics(const workload::Workload& w);

// Writes the exposition atomically (a temporary beside `path`, then rename), so the
// collector never reads half a file. Throws EnvironmentError naming the path.
void write_metrics(const std::string& path, const prometheus::Exposition& e);

}  // namespace cctune::app::metrics
