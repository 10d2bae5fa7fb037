#pragma once
// results.json, written by rank 0: collects the runs and their points, and saves the file
// atomically at every run start, after every collective and at the end, so an interrupted
// run keeps its data. With an empty path it only collects (diagnose's parts, whose runs are
// saved together per stage).
#include <string>

#include "app/reporter.hpp"
#include "core/results.hpp"

namespace cctune::app {

class JsonReporter final : public Reporter {
 public:
  JsonReporter(Results initial, std::string path);
  void begin_run(const RunResult& run) override;
  void point(const PointResult& p) override;
  void screened(const PointResult& p) override;
  void end_collective() override;
  void run_timing(double duration_s, double startup_s) override;
  void fail_run(const std::string& reason) override;
  // Sets meta status and end time, and saves.
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
};

}  // namespace cctune::app
