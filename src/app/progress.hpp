#pragma once
// A one-line progress indicator with ETA, redrawn in place on a terminal and silent when
// stderr is a file or pipe (logs stay clean).
#include <chrono>
#include <cstdio>
#include <string>

namespace cctune::app {

class Progress {
 public:
  Progress(long total_steps, std::FILE* out = stderr);
  // Redraws "[label] step/total ETA"; `label` names what runs now (collective, size, config).
  void update(long done_steps, const std::string& label);
  // Erases the line so that table rows print cleanly.
  void clear();
  bool active() const { return active_; }

 private:
  long total_;
  std::FILE* out_;
  bool active_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace cctune::app
