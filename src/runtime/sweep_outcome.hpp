#pragma once
// What a backend's sweep returns to its command, the same for every backend and every rank.
namespace cctune::runtime {

struct SweepOutcome {
  int stop_signal = 0;    // non-zero (SIGINT or SIGTERM) when the sweep was interrupted
  int groups = 0;         // config groups (runs) started
  int failed_groups = 0;  // of those, the ones that failed (their reasons are in results.json)
  bool interrupted() const { return stop_signal != 0; }
};

}  // namespace cctune::runtime
