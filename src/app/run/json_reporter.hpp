#pragma once
// results.json, written by rank 0: collects the runs and their points. Every point is
// appended and fsynced to results.journal (core/results_journal.hpp) the moment it arrives,
// between measurements; results.json itself is rewritten atomically only when a run starts
// or ends and at the end of the sweep, which folds the journal in and removes it. A kill at
// any moment therefore loses no completed point: readers fold the journal back in. With an
// empty path it only collects (diagnose's parts, whose runs are saved together per stage).
#include <optional>
#include <string>
#include <vector>

#include "core/reporter.hpp"
#include "core/results.hpp"
#include "core/results_journal.hpp"
#include "core/results_json.hpp"

namespace cctune::app {

class JsonReporter final : public Reporter {
 public:
  // With a path, the first save (the first run's start) writes results.json and replaces a
  // journal left beside it (the caller has folded it into `initial`, or was told to start
  // over) with a new one.
  JsonReporter(Results initial, std::string path);
  void begin_run(const RunResult& run) override;
  void point(const PointResult& p) override;
  void screened(const PointResult& p) override;
  void run_timing(double duration_s, double startup_s) override;
  void fail_run(const std::string& reason) override;
  // Sets meta status and end time, saves, and removes the journal (results.json holds it all).
  void finish(MetaStatus status) override;

  const Results& results() const { return results_; }
  const std::string& path() const { return path_; }

 private:
  void save();
  Results results_;
  std::string path_;
  // Between begin_run and the run's end (run_timing, or finish): a file saved meanwhile says
  // "interrupted" for it, which is what it is should the process die before the end.
  bool run_open_ = false;
  std::optional<ResultsJournal> journal_;
  std::vector<PointTexts> texts_;  // texts_[run]: the cached texts of runs[run].points
};

}  // namespace cctune::app
