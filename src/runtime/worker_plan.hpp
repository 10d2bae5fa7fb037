#pragma once
// The points of a plan, in the one order both backends measure them: the MPI sweep walks
// them in its supervisors, NCCL workers walk them (or a search strategy picks among them),
// and supervisors use the same list to name a point in a failure reason.
#include <string>
#include <vector>

#include "collectives/backend.hpp"
#include "runtime/sweep_plan.hpp"

namespace cctune::runtime {

// The in-process configs of a plan: its NCCL configs, or NCCL's own choice alone (the MPI
// backend, or a plan that lists none).
const std::vector<PointConfig>& point_configs(const SweepPlan& plan);

// The planned reason `spec` is skipped (plan.skips), or nullptr when it is to be measured.
const SkipRule* planned_skip(const SweepPlan& plan, const PointSpec& spec);

// Points in order: collective, implementation, dtype, op, root (the series of
// plan.space, core/point_space.hpp), then size, config, placement. A run of the outer four
// is a series (one table section): each has sizes x configs x placements points. Configs are
// inner so the candidates compared at a size are measured minutes apart at most, not a whole
// sweep apart (clocks and temperatures drift between them). Gather/scatter-like collectives need
// at least one element per rank: a smaller size is raised to that (and the row shows the size
// actually moved). A plan with job_shapes (`sweep --workload`) yields those shapes alone, in
// their order, each a series of one size (with every op, root, config and placement).
std::vector<PointSpec> enumerate_points(const SweepPlan& plan, int nranks);
// A block is one series of the list (PointSpec::series), in order: one (collective,
// implementation, dtype, op, root) of a grid, or one job shape; a rooted collective under
// `--root all` has one block per rank and dtype (and op, for reductions). A block holds
// sizes x configs x placements points; its sizes are the series' own (a grid's sizes that
// round to one size are one), so blocks may differ in length. A replayed step is one point.
struct PointBlock {
  std::size_t start = 0;  // its first point's index
  std::size_t sizes = 0;
};
std::vector<PointBlock> point_blocks(const SweepPlan& plan, const std::vector<PointSpec>& points);
// The index of (size s, config k, placement p) of `block` in enumerate_points' list.
std::size_t point_index(const SweepPlan& plan, const PointBlock& block, std::size_t s, std::size_t k, std::size_t p);

// "allreduce 1 KiB out-of-place" (+ " ring/simple/16ch" when forced).
std::string describe(const PointSpec& spec);

// The largest send and receive buffers any of `points` needs, in bytes: what a backend
// allocates once (in-place layouts use the receive buffer for allreduce/allgather and the
// send buffer for reducescatter, so these cover them). A replayed step needs its largest call
// or the sum of its largest group's members (collectives/step_buffers.hpp).
struct BufferBytes {
  std::uint64_t send = 0;
  std::uint64_t recv = 0;
};
BufferBytes largest_buffers(const std::vector<PointSpec>& points);

}  // namespace cctune::runtime
