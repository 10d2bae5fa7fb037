#pragma once
// The worker's side after its communicator exists: a search strategy (tuner/search: the
// exhaustive reference or successive halving, as the plan says) picks the group's points;
// the worker announces each (the heartbeat), measures it with the shared engine, and NCCL
// rank 0 sends the result. A test build of cctune may act at the start of each point
// (BeforePoint: a worker that hangs, aborts or exits there, so the supervisor's handling is tested).
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "collectives/backend.hpp"
#include "comm/rank_comm.hpp"
#include "runtime/protocol.hpp"
#include "runtime/worker_plan.hpp"

namespace cctune::runtime {

using Emit = std::function<void(const Message&)>;
// Called at the start of each point, with the worker's spec and the point's index, before it
// is measured. Production passes none; a test build of cctune may (app/cli/seams.hpp).
using BeforePoint = std::function<void(const WorkerSpec&, long point)>;

// The points one strategy searches: the candidates, (config, placement) index pairs the plan
// does not skip, of one block (a collective with one dtype, op and root: worker_plan.hpp)
// at every size. Halving compares configs, so each placement
// is a unit of its own; the exhaustive strategy gets every placement of a block in one
// unit, which keeps the points in enumerate_points' order (size, config, placement).
struct SearchUnit {
  std::size_t block = 0;  // its index in point_blocks(plan, points)
  PointBlock points;      // that block: where its points start, and its sizes
  std::vector<std::pair<std::size_t, std::size_t>> candidates;
  std::optional<std::size_t> nccl_default;  // the candidate that is NCCL's own choice
};
std::vector<SearchUnit> search_units(const SweepPlan& plan, const std::vector<PointSpec>& points);

// Runs the points the plan's strategy asks for, unit by unit; emits progress before each
// point and (rank 0) the result after. Screening results carry "screen_round".
void run_worker_points(CollectiveBackend& backend, RankComm& comm, const WorkerSpec& spec, const SweepPlan& plan,
                       const std::vector<PointSpec>& points, const Emit& emit, const BeforePoint& before_point = {});

}  // namespace cctune::runtime
