#pragma once
// The worker's side after its communicator exists: walk the group's points in order,
// announce each (the heartbeat), measure it with the shared engine, and let NCCL rank 0
// send the result. Also the test-only fault switch (CCTUNE_TEST_FAULT) that makes one
// worker hang, abort or exit at a chosen point, so the supervisor's handling is tested.
#include <functional>

#include "collectives/backend.hpp"
#include "collectives/rank_comm.hpp"
#include "runtime/protocol.hpp"
#include "runtime/worker_plan.hpp"

namespace cctune::runtime {

using Emit = std::function<void(const Message&)>;

// Runs every point of `points` (or, for the halving strategy, the ones it asks for); emits
// progress before each and (rank 0) the result after.
void run_worker_points(CollectiveBackend& backend, RankComm& comm, const WorkerSpec& spec, const WorkerPlan& plan,
                       const std::vector<PointSpec>& points, const Emit& emit);

// Commits `fault` if it names this rank and point: hang forever, abort(), or _exit(7).
void maybe_commit_fault(const WorkerSpec& spec, long point);

}  // namespace cctune::runtime
