#pragma once
// The points a plan measures, apart from its configurations: a grid (every collective x data
// type x size), a job's own shapes (each its own collective, data type and size; `sweep
// --workload`) or one replayed step (`cctune replay`: one point whose operation is the whole
// step), each series measured with every op (reductions), root (rooted collectives),
// implementation (NCCL's alltoall, gather, scatter) and placement. The one enumerator of a
// plan's points: the runtime's point list, the space's dry run and its estimate, the plan's
// check and the workload dry run all walk it, so none can count what another does not measure
// (two enumerators that disagreed once printed 40 points for a run that measured others, and
// once refused a 4-shape plan as 15.4M points). Pure. Architecture review 2026-11-27 §5.1; the
// idea is nvbench's iteration spaces (a grid is its product space, the shapes its tied space).
#include <cstdint>
#include <functional>
#include <optional>
#include <variant>
#include <vector>

#include "core/collective.hpp"
#include "core/collective_traits.hpp"
#include "core/job_point.hpp"

namespace cctune {

struct PointGrid {
  std::vector<Collective> collectives;
  std::vector<std::uint64_t> sizes;  // requested; each collective raises them to whole elements per rank
  std::vector<DType> dtypes{DType::Float32};
};

struct PointShapes {
  std::vector<JobPoint> shapes;  // the call shape only (collective, dtype, size_bytes), in order
};

// One call of a replayed step: the per-rank element count the job passed to NCCL (its bytes
// follow from the rank count the step runs on).
struct ReplayCall {
  Collective collective = Collective::AllReduce;
  DType dtype = DType::Float32;
  ReduceOp op = ReduceOp::Sum;
  int root = 0;
  std::uint64_t count = 0;
  int repeats = 1;
  int group = -1;  // the calls of one NCCL group share it and are consecutive; -1: a lone call
  bool operator==(const ReplayCall&) const = default;
};

struct PointStep {
  std::vector<ReplayCall> calls;  // in the order the job issued them
  // The largest call's shape, as tables and results name the step (its op and root are the
  // space's); a series of one size for the count and the estimate.
  JobPoint largest;
};

struct PointSpace {
  std::variant<PointGrid, PointShapes, PointStep> points;
  std::vector<ReduceOp> ops{ReduceOp::Sum};  // reductions run each; the others the first
  int root = 0;                              // rooted collectives' root, unless all_roots
  bool all_roots = false;                    // rooted collectives once per rank (`--root all`)
  std::vector<P2pImpl> impls;                // collectives with two implementations: each; empty: none named
  std::vector<bool> placements{false};       // in_place values, out-of-place first
};

// One run of points that differ only in size, config and placement: a table section.
struct PointSeries {
  Collective collective = Collective::AllReduce;
  std::optional<P2pImpl> impl;
  DType dtype = DType::Float32;
  ReduceOp op = ReduceOp::Sum;
  int root = 0;
};

// The series of `space` in the order the run measures them (collective, implementation, data
// type, op, root; a job's shapes in their order, each a series of one size; a step's largest
// call), each with its
// sizes as the run measures them on `nranks` ranks (raised to the collective's granule, each
// once: a grid's sizes that round to one size are one point).
// `nranks` 0 means not yet known: sizes as requested, and all_roots as one root.
void for_each_series(const PointSpace& space, int nranks,
                     const std::function<void(const PointSeries&, const std::vector<std::uint64_t>& sizes)>& visit);

// The points of `space` with one configuration (sizes x placements over every series), counted
// without making any; a double, so that an absurd space is counted and refused, never overflows.
double points_per_config(const PointSpace& space, int nranks);

// `space` with the points of collective `c` alone (its grid's collectives, or its shapes, cut
// to c; a step is one point and stays whole).
PointSpace only_collective(const PointSpace& space, Collective c);

// What the space measures, listed as a plan's settings name it: the collectives and data types
// in first-use order, the sizes as requested (a grid's in its order; shapes' distinct, rising;
// a step's largest call).
std::vector<Collective> collectives_of(const PointSpace& space);
std::vector<DType> dtypes_of(const PointSpace& space);
std::vector<std::uint64_t> sizes_of(const PointSpace& space);
// Whether any collective of the space takes a root.
bool has_rooted(const PointSpace& space);

// The implementations `--p2p-impl` names.
std::vector<P2pImpl> impls_of(P2pImplChoice choice);

}  // namespace cctune
