#pragma once
// What a worker measures, read from the "plan" of its spec (the JSON that `cctune sweep`
// writes for its resolved options, plus "configs"), and the ordered list of points every
// worker of a group walks through. Supervisors use the same list to name a point in a
// failure reason.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "collectives/backend.hpp"
#include "collectives/engine.hpp"
#include "runtime/groups.hpp"

namespace cctune::runtime {

enum class SearchKind { Exhaustive, Halving };

struct WorkerPlan {
  std::vector<Collective> collectives;
  std::vector<std::uint64_t> sizes;
  DType dtype = DType::Float32;
  ReduceOp op = ReduceOp::Sum;
  std::vector<bool> placements;      // in_place values, in order
  MeasureSettings measure;
  std::vector<PointConfig> configs;  // in-process dimensions; default: one "auto" config
  SearchKind search = SearchKind::Exhaustive;
  std::vector<SkipRule> skips;       // this group's planned skips ("skips" in the plan)
};

// The planned reason `spec` is skipped, or nullptr when it is to be measured.
const SkipRule* planned_skip(const WorkerPlan& plan, const PointSpec& spec);

// Throws UsageError on a malformed plan.
WorkerPlan worker_plan_from_json(const nlohmann::json& plan);

// Points in the order workers run them: collective, size, config, placement. Configs are
// inner so the candidates compared at a size are measured minutes apart at most, not a
// whole sweep apart (clocks and temperatures drift between them).
std::vector<PointSpec> enumerate_points(const WorkerPlan& plan, int nranks);
// The index of (collective c, size s, config k, placement p) in enumerate_points' list.
std::size_t point_index(const WorkerPlan& plan, std::size_t c, std::size_t s, std::size_t k, std::size_t p);

// "allreduce 1 KiB out-of-place" (+ " ring/simple/16ch" when forced).
std::string describe(const PointSpec& spec);

// Bytes a worker must hold for the largest point (send, recv), for buffer allocation.
std::pair<std::uint64_t, std::uint64_t> largest_buffers(const std::vector<PointSpec>& points, DType dtype);

}  // namespace cctune::runtime
