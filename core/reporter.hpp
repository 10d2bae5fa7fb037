#pragma once
// What a sweep tells the outside world while it measures, as nvbench's printers and
// google/benchmark's reporters: the backends send events, reporters format or save them
// (results.json, the table, the progress line, CSV). Measuring code never asks who listens:
// ranks other than 0 get an empty Reporters and send the same events.
//
// Event order: begin_sweep (once); per run (config group): begin_run, { begin_collective,
// { measuring, point | screened }*, end_collective }*, run_timing?, fail_run?, note*; then
// finish (once). An interrupted sweep goes straight to finish(MetaStatus::Interrupted).
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/results.hpp"

namespace cctune {

class Reporter {
 public:
  virtual ~Reporter() = default;
  // `total_steps`: the points the progress counts (measuring()'s `step` runs 0..total).
  virtual void begin_sweep(long /*total_steps*/) {}
  // A new run; its `points` may already hold points carried over by --resume.
  virtual void begin_run(const RunResult& /*run*/) {}
  // `context` says where the collective runs (backend, group, ranks, dtype).
  virtual void begin_collective(Collective /*c*/, const std::string& /*context*/) {}
  // About to measure step `step` of the sweep; `label` names it (collective, size, config).
  virtual void measuring(long /*step*/, const std::string& /*label*/) {}
  // A measured (or skipped, or failed) point of the current run and collective. Points
  // arrive out-of-place then in-place per size and config.
  virtual void point(const PointResult& /*p*/) {}
  // A screening measurement of the halving strategy: part of the run, not a result.
  virtual void screened(const PointResult& /*p*/) {}
  virtual void end_collective() {}
  // The current run's wall time and the part of it before its first point.
  virtual void run_timing(double /*duration_s*/, double /*startup_s*/) {}
  virtual void fail_run(const std::string& /*reason*/) {}
  // A line for the user while the sweep goes on (a config group failed), without "cctune: ".
  virtual void note(const std::string& /*line*/) {}
  // The end of the sweep: "complete", "interrupted" or "failed".
  virtual void finish(MetaStatus /*status*/) {}
};

// Forwards every event to its reporters, in the order they were added (the progress line
// first, so that it is cleared before anything else prints). Empty on ranks other than 0.
class Reporters final : public Reporter {
 public:
  void add(std::unique_ptr<Reporter> r) { list_.push_back(std::move(r)); }

  void begin_sweep(long total_steps) override;
  void begin_run(const RunResult& run) override;
  void begin_collective(Collective c, const std::string& context) override;
  void measuring(long step, const std::string& label) override;
  void point(const PointResult& p) override;
  void screened(const PointResult& p) override;
  void end_collective() override;
  void run_timing(double duration_s, double startup_s) override;
  void fail_run(const std::string& reason) override;
  void note(const std::string& line) override;
  void finish(MetaStatus status) override;

 private:
  std::vector<std::unique_ptr<Reporter>> list_;
};

// Runs a reporter's write of a file only rank 0 keeps. Its error is marked rank-local: the
// other ranks cannot know of it, so the app layer stops the whole job (main.cpp) rather
// than leave them waiting in their next collective.
void write_on_rank0(const std::function<void()>& write);

}  // namespace cctune
