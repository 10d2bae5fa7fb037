#pragma once
// One training step of a captured job as `cctune replay` issues it (docs/WORKLOAD.md "Replay"):
// the collectives of every communicator this allocation reproduces (as many ranks as the job),
// each shape as often as it runs per step, in capture order. Pure: planning only.
#include <cstdint>
#include <string>
#include <vector>

#include "workload/workload.hpp"

namespace cctune::workload {

struct ReplayCall {
  std::string communicator;
  CallShape shape;
  std::uint64_t repeats = 0;  // calls of this shape per step, issued back to back
};

struct ReplayStep {
  int nranks = 0;
  std::vector<ReplayCall> calls;   // in issue order
  bool capture_order = false;      // true: ordered by first_call; false: by shape (no order recorded)
  std::vector<std::string> notes;  // what was left out or rounded, one line each
};

// Throws UsageError (naming the fix) when `w` has no step count, or no communicator of
// `nranks` ranks holds a collective to replay. Left out, each with a note: send/recv, other
// communicators, and shapes that run in fewer than half the steps (rounded calls per step 0:
// start-up calls, such as DDP's first whole-model AllReduce). Calls per step that are not
// whole are rounded to the nearest, with a note.
ReplayStep plan_replay(const Workload& w, int nranks);

// One line per call: "  3 x allreduce float32 sum 25.0 MiB (6553600 elements) on 0x1234".
std::string format_replay(const ReplayStep& step);

}  // namespace cctune::workload
