#include "app/json_reporter.hpp"

#include "app/run_meta.hpp"
#include "core/results_json.hpp"
#include "tuner/profile/algo_proto.hpp"

namespace cctune::app {

JsonReporter::JsonReporter(Results initial, std::string path) : results_(std::move(initial)), path_(std::move(path)) {}

void JsonReporter::begin_run(const RunResult& run) {
  results_.runs.push_back(run);
  run_open_ = true;
  save();
}

void JsonReporter::point(const PointResult& p) {
  RunResult& run = results_.runs.back();
  run.points.push_back(p);
  if (!p.offered_algos.empty()) {
    // The run's summary: per collective, every algorithm NCCL offered at any of its points.
    std::vector<std::string>& offered = run.nccl_offered[to_string(p.collective)];
    offered = tuner::algorithm_names(tuner::algorithm_set(offered) | tuner::algorithm_set(p.offered_algos));
  }
}

void JsonReporter::screened(const PointResult& p) { results_.runs.back().screened.push_back(p); }

void JsonReporter::end_collective() { save(); }

void JsonReporter::fail_run(const std::string& reason) {
  results_.runs.back().status = RunStatus::Failed;
  results_.runs.back().reason = reason;
  save();
}

void JsonReporter::run_timing(double duration_s, double startup_s) {
  results_.runs.back().duration_s = duration_s;
  results_.runs.back().startup_s = startup_s;
  run_open_ = false;  // the group ended; fail_run or finish(Interrupted) say how, if not well
  save();
}

void JsonReporter::save() {
  if (path_.empty()) return;
  // A run still being measured is saved as interrupted (issue 24, F16): after a crash it must
  // not read "ok" with only part of its points.
  RunStatus* open = run_open_ && !results_.runs.empty() && results_.runs.back().status == RunStatus::Ok ? &results_.runs.back().status
                                                                                                         : nullptr;
  if (open) *open = RunStatus::Interrupted;
  try {
    write_on_rank0([&] { save_results(results_, path_); });
  } catch (...) {
    if (open) *open = RunStatus::Ok;
    throw;
  }
  if (open) *open = RunStatus::Ok;
}

void JsonReporter::finish(MetaStatus status) {
  results_.meta.status = status;
  results_.meta.end_time = utc_now_iso8601();
  if (status == MetaStatus::Interrupted && !results_.runs.empty() && results_.runs.back().status == RunStatus::Ok)
    results_.runs.back().status = RunStatus::Interrupted;
  run_open_ = false;
  save();
}

}  // namespace cctune::app
