#pragma once
// What a sweep says on stderr: a one-line progress indicator with ETA, redrawn in place on a
// terminal and silent when stderr is a file or pipe (logs stay clean), and notes (a failed
// config group) always. It erases its line before any other reporter prints, so table rows
// and messages never mix with it.
#include <chrono>
#include <cstdio>
#include <string>

#include "core/reporter.hpp"

namespace cctune::app {

class ProgressReporter final : public Reporter {
 public:
  explicit ProgressReporter(std::FILE* out = stderr);
  void begin_sweep(long total_steps) override;
  // Redraws "[step/total] label  ETA ..."; `label` names what runs now.
  void measuring(long step, const std::string& label) override;
  void begin_collective(Collective, const std::string&) override { clear(); }
  void point(const PointResult&) override { clear(); }
  void end_collective() override { clear(); }
  void fail_run(const std::string&) override { clear(); }
  void note(const std::string& line) override;
  void finish(MetaStatus) override { clear(); }
  bool active() const { return active_; }

 private:
  void clear();
  long total_ = 0;
  std::FILE* out_;
  bool active_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace cctune::app
