#include "app/run/json_reporter.hpp"

#include <cerrno>
#include <cstdio>

#include "app/run/run_meta.hpp"
#include "core/error.hpp"
#include "core/race_rounds.hpp"
#include "core/results_json.hpp"

namespace cctune::app {

JsonReporter::JsonReporter(Results initial, std::string path) : results_(std::move(initial)), path_(std::move(path)) {}

void JsonReporter::begin_run(const RunResult& run) {
  results_.runs.push_back(run);
  run_open_ = true;
  if (!path_.empty()) {
    texts_.resize(results_.runs.size());
    for (const PointResult& p : run.points) texts_.back().add(p);  // carried by --resume
  }
  save();
}

void JsonReporter::point(const PointResult& p) {
  RunResult& run = results_.runs.back();
  run.points.push_back(p);
  AlgorithmOffer changed;
  if (!p.offered_algos.empty()) {
    // The run's summary: per collective, every algorithm NCCL offered at any of its points.
    AlgorithmOffer& offered = run.nccl_offered[p.collective];
    const AlgorithmOffer before = offered;
    offered |= p.offered_algos;
    if (offered != before) changed = offered;
  }
  if (!path_.empty()) texts_.back().add(p);
  // Between points, on the supervisor: never inside a timed batch.
  if (journal_) write_on_rank0([&] { journal_->point(results_.runs.size() - 1, run.points.size() - 1, p, changed); });
}

void JsonReporter::screened(const PointResult& p) {
  RunResult& run = results_.runs.back();
  run.screened.push_back(p);
  if (journal_) write_on_rank0([&] { journal_->screened(results_.runs.size() - 1, run.screened.size() - 1, p); });
}

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
  RunStatus* open =
      run_open_ && !results_.runs.empty() && results_.runs.back().status == RunStatus::Ok ? &results_.runs.back().status : nullptr;
  if (open) *open = RunStatus::Interrupted;
  try {
    write_on_rank0([&] {
      texts_.resize(results_.runs.size());  // runs carried from an earlier sweep, never begun here
      for (std::size_t i = 0; i < results_.runs.size(); ++i)
        if (texts_[i].count() != results_.runs[i].points.size()) {
          texts_[i] = {};
          for (const PointResult& p : results_.runs[i].points) texts_[i].add(p);
        }
      save_results_with_points(results_, texts_, path_);
      if (journal_) return;
      // The first save: results.json now holds what an earlier journal held (--resume folded
      // it in) or is meant to replace it (--force), so the new sweep starts a journal of its own.
      const std::string journal = journal_path_for(path_);
      if (std::remove(journal.c_str()) != 0 && errno != ENOENT)
        throw EnvironmentError("cannot remove " + journal + " left by an earlier sweep", "check the permissions of its directory");
      journal_.emplace(journal, results_.meta.start_time);
    });
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
  // One run per group in the file (a race's reruns folded): the journal, indexed by run, goes below.
  const std::size_t runs_before = results_.runs.size();
  fold_race_rounds(results_);
  if (results_.runs.size() != runs_before) texts_.clear();
  save();
  // results.json holds every point now; a journal left behind would only be folded again.
  if (journal_) {
    const std::string journal = journal_->path();
    journal_.reset();
    std::remove(journal.c_str());
  }
}

}  // namespace cctune::app
