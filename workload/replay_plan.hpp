#pragma once
// One training step of a captured job as `cctune replay` issues it (docs/WORKLOAD.md "Replay"):
// the collectives of every communicator this allocation reproduces (as many ranks as the job),
// each shape as often as it runs per step, and each captured ncclGroupStart/End group of
// collectives as often as it was issued per step, in capture order. Pure: planning only.
#include <cstdint>
#include <string>
#include <vector>

#include "core/point_space.hpp"
#include "workload/workload.hpp"

namespace cctune::workload {

// A captured call as replay prints and records it (its communicator, its bytes); the workers
// issue core's ReplayCall (core/point_space.hpp), which ReplayStep::issued() gives.
struct CapturedCall {
  std::string communicator;
  CallShape shape;
  // Calls of this shape per step, issued back to back; a group's members carry the group's
  // count: the whole group is issued that many times.
  std::uint64_t repeats = 0;
  // -1: issued alone. Otherwise the step's group index (0, 1, ... in step order): the calls
  // that share it are consecutive, in member order, issued inside one ncclGroupStart/End.
  int group = -1;
};

struct ReplayStep {
  int nranks = 0;
  std::vector<CapturedCall> calls;  // in issue order
  int groups = 0;                  // distinct group indices among `calls`
  bool capture_order = false;      // true: ordered by first_call; false: by shape (no order recorded)
  std::vector<std::string> notes;  // what was left out or rounded, one line each
  // The calls as the workers issue them, the plan's point space (core/point_space.hpp): each
  // call's op and root as captured (sum and 0 where the capture had none), named by the
  // largest call. The captured calls above stay what is printed and recorded.
  PointStep issued() const;
  // The largest call (by bytes; the first of equal ones), which names the step; 0 when none.
  std::size_t largest() const;
};

// Throws UsageError (naming the fix) when `w` has no step count, or no communicator of
// `nranks` ranks holds a collective to replay. Left out, each with a note: send/recv, groups
// that hold send/recv, other communicators, and shapes and groups that run in fewer than half
// the steps (rounded calls per step 0: start-up calls, such as DDP's first whole-model
// AllReduce). Calls per step that are not whole are rounded to the nearest, with a note.
// A replayed group's member calls are taken from the shapes that stand for them (same kind,
// collective, root and bytes; equal shapes first, then equal dtype, so an int8 allgather
// shape of the profiler stands for a bf16 member of the same bytes) before those shapes'
// remaining calls are rounded. A group is placed where its earliest member's shape first
// appeared (first_call): the file keeps no call sequence, so this is an approximation.
ReplayStep plan_replay(const Workload& w, int nranks);

// One line per call or group: "  3 x allreduce float32 sum 25.0 MiB (6553600 elements) on 0x1234",
// "  1 x group of 2: allreduce float32 sum 512 KiB (131072 elements), allgather ... on 0x1234".
std::string format_replay(const ReplayStep& step);

}  // namespace cctune::workload
