#pragma once
// The plans the runtime tests start from, built typed (no command line). launch_test's
// SamplePlans tests check that `cctune sweep` resolves the same plans from its options.
#include <nlohmann/json.hpp>
#include <string>

#include "core/error.hpp"
#include "core/sizes.hpp"
#include "runtime/plan_check.hpp"
#include "runtime/sweep_plan.hpp"

namespace cctune::runtime::samples {

// The grid of a plan the test built as one (the lists it sets and reads).
inline PointGrid& grid_of(SweepPlan& p) { return std::get<PointGrid>(p.space.points); }
inline const PointGrid& grid_of(const SweepPlan& p) { return std::get<PointGrid>(p.space.points); }

// `cctune sweep --backend mpi` with every other option at its default.
inline SweepPlan sample_mpi_plan() {
  SweepPlan p;
  p.backend = BackendChoice::Mpi;
  grid_of(p).collectives = {Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter};
  grid_of(p).sizes = SizeSequence{8, 64ull << 20, 2.0, 0, {}}.expand();
  p.space.placements = {false, true};
  p.measure.batch_iters = 20;
  p.measure.warmup_iters = 5;
  p.measure.stop.min_iterations = 20;
  p.measure.stop.max_time_s = 1.0;
  p.measure.stop.target_rel_noise = 0.01;
  p.output_dir = "cctune-out";
  check_plan(p);
  return p;
}

// -b 8 -e 1K --collectives allreduce,allgather -n 7 -w 3 -c 1 --backend nccl
// --transport nvlink,pcie --env-group big:NCCL_BUFFSIZE=8388608
inline SweepPlan sample_nccl_plan() {
  SweepPlan p = sample_mpi_plan();
  p.backend = BackendChoice::Nccl;
  p.space.impls = {P2pImpl::Native};  // --p2p-impl native, as resolved for the NCCL backend
  grid_of(p).collectives = {Collective::AllReduce, Collective::AllGather};
  grid_of(p).sizes = SizeSequence{8, 1024, 2.0, 0, {}}.expand();
  p.measure.batch_iters = 7;
  p.measure.warmup_iters = 3;
  p.measure.check = true;
  p.nccl.groups = {transport_group("nvlink"), transport_group("pcie"), ConfigGroup{"big", {{"NCCL_BUFFSIZE", "8388608"}}, {}}};
  p.nccl.configs = {PointConfig{}};  // NCCL's own choice
  check_plan(p);
  return p;
}

// What plan_from_json says of `j`: its one-line refusal, or "accepted".
inline std::string plan_refusal(const nlohmann::json& j) {
  try {
    plan_from_json(j);
  } catch (const UsageError& e) {
    return e.what_only();
  }
  return "accepted";
}

}  // namespace cctune::runtime::samples
