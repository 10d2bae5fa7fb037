#include "app/results_sink.hpp"

#include "app/run_meta.hpp"
#include "core/error.hpp"
#include "core/results_json.hpp"
#include "tuner/profile/algo_proto.hpp"

namespace cctune::app {

ResultsSink::ResultsSink(Results initial, std::string path, bool print_table)
    : results_(std::move(initial)), path_(std::move(path)), print_(print_table) {}

void ResultsSink::begin_run(RunResult run) {
  results_.runs.push_back(std::move(run));
  save();
}

void ResultsSink::begin_collective(Collective c, const std::string& context) {
  busbw_sum_ = 0;
  busbw_points_ = 0;
  if (print_) table_.header(c, context);
}

void ResultsSink::add_point(const PointResult& p) {
  RunResult& run = results_.runs.back();
  run.points.push_back(p);
  if (!p.offered_algos.empty()) {
    // The run's summary: per collective, every algorithm NCCL offered at any of its points.
    std::vector<std::string>& offered = run.nccl_offered[to_string(p.collective)];
    offered = tuner::algorithm_names(tuner::algorithm_set(offered) | tuner::algorithm_set(p.offered_algos));
  }
  if (p.status == PointStatus::Ok) {
    busbw_sum_ += p.busbw_GBps;
    ++busbw_points_;
  }
  const PointResult* current = pending_oop_ ? &*pending_oop_ : pending_ip_ ? &*pending_ip_ : nullptr;
  if (current && (current->size_bytes != p.size_bytes || !(current->config == p.config))) flush_row();
  (p.in_place ? pending_ip_ : pending_oop_) = p;
  if (pending_oop_ && pending_ip_) flush_row();
}

void ResultsSink::add_screened(const PointResult& p) { results_.runs.back().screened.push_back(p); }

void ResultsSink::flush_row() {
  if (print_ && (pending_oop_ || pending_ip_)) table_.row(pending_oop_, pending_ip_);
  pending_oop_.reset();
  pending_ip_.reset();
}

void ResultsSink::end_collective() {
  flush_row();
  if (print_) table_.footer(busbw_points_ ? busbw_sum_ / busbw_points_ : 0.0, busbw_points_);
  save();
}

void ResultsSink::fail_run(const std::string& reason) {
  flush_row();
  results_.runs.back().status = RunStatus::Failed;
  results_.runs.back().reason = reason;
  save();
}

void ResultsSink::set_run_timing(double duration_s, double startup_s) {
  results_.runs.back().duration_s = duration_s;
  results_.runs.back().startup_s = startup_s;
  save();
}

void ResultsSink::save() {
  try {
    save_results(results_, path_);
  } catch (Error& e) {
    // Only rank 0 writes: the other ranks must be stopped, not left in their next collective.
    e.mark_rank_local();
    throw;
  }
}

void ResultsSink::finish(MetaStatus status) {
  flush_row();
  results_.meta.status = status;
  results_.meta.end_time = utc_now_iso8601();
  if (status == MetaStatus::Interrupted && !results_.runs.empty() && results_.runs.back().status == RunStatus::Ok)
    results_.runs.back().status = RunStatus::Interrupted;
  save();
}

}  // namespace cctune::app
