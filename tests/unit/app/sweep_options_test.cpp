// `cctune sweep`'s options resolved into a plan (the command-line edge): flags checked with
// one line naming them, and the typed sample plans of the runtime tests are the plans the
// equivalent options resolve to.
#include <gtest/gtest.h>

#include "app/cli/sweep_options.hpp"
#include "core/error.hpp"
#include "unit/runtime/sample_plan.hpp"

namespace cctune::app {
namespace {

TEST(SamplePlans, AreWhatTheirOptionsResolveTo) {
  SweepArgs a;
  a.backend = "mpi";
  EXPECT_EQ(to_json(resolve_sweep(a, false, false)), to_json(runtime::samples::sample_mpi_plan()));
  EXPECT_EQ(resolve_sweep(a, false, false).output_dir, runtime::samples::sample_mpi_plan().output_dir);
  a.max_bytes = "1K";
  a.collectives = "allreduce,allgather";
  a.iters = 7;
  a.warmup = 3;
  a.check = 1;
  a.backend = "nccl";
  a.transport = "nvlink,pcie";
  a.env_groups = {"big:NCCL_BUFFSIZE=8388608"};
  EXPECT_EQ(to_json(resolve_sweep(a, true, true)), to_json(runtime::samples::sample_nccl_plan()));
}

TEST(SweepOptions, RootIsARankOrAll) {
  SweepArgs a;
  a.backend = "mpi";
  a.collectives = "allreduce,broadcast";
  a.root = "2";
  SweepPlan plan = resolve_sweep(a, false, false);
  EXPECT_EQ(plan.space.root, 2);
  EXPECT_FALSE(plan.space.all_roots);
  EXPECT_NO_THROW(check_root(plan, 3));
  EXPECT_THROW(check_root(plan, 2), UsageError);
  runtime::samples::grid_of(plan).collectives = {Collective::AllReduce};
  EXPECT_NO_THROW(check_root(plan, 2));  // no rooted collective: the root is unused
  a.root = "all";
  EXPECT_TRUE(resolve_sweep(a, false, false).space.all_roots);
  a.root = "x1";
  EXPECT_THROW(resolve_sweep(a, false, false), UsageError);
  a.root = "-1";
  EXPECT_THROW(resolve_sweep(a, false, false), UsageError);
}

// Review N15: a replayed step's roots come from the workload, one per call. Each is checked
// (not only the largest call's), and the refusal does not name a --root nobody passed.
TEST(SweepOptions, ReplayedRootsAreTheWorkloadsAndEachIsChecked) {
  SweepArgs a;
  a.backend = "nccl";
  SweepPlan plan = resolve_settings(a, true, true);
  PointStep step;
  step.calls = {{Collective::AllReduce, DType::Float32, ReduceOp::Sum, 0, 1 << 20, 1, -1},
                {Collective::Broadcast, DType::Float32, ReduceOp::Sum, 7, 1024, 1, -1}};
  step.largest = {Collective::AllReduce, DType::Float32, 4 << 20};
  plan.space.points = step;
  plan.space.root = 0;  // the largest call's, as replay sets it
  EXPECT_NO_THROW(check_root(plan, 8));
  try {
    check_root(plan, 2);
    ADD_FAILURE() << "root 7 of a 2-rank job was accepted";
  } catch (const UsageError& e) {
    EXPECT_EQ(e.what_only(), "a broadcast call of the workload has root 7, not a rank of this 2-rank job (the root comes from the workload; "
                             "replay takes no --root)");
  }
}

TEST(SweepOptions, NcclOptionsAreValidated) {
  SweepArgs a;
  a.backend = "nccl";
  a.point_timeout_s = 0;
  EXPECT_THROW(resolve_sweep(a, true, true), UsageError);
  a.point_timeout_s = 5;
  a.transport = "infiniband";
  EXPECT_THROW(resolve_sweep(a, true, true), UsageError);
  a.transport = "pcie";
  a.env_groups = {"pcie:NCCL_X=1"};
  EXPECT_THROW(resolve_sweep(a, true, true), UsageError);
  a.env_groups = {};
  a.emulate_nodes = 0;
  EXPECT_THROW(resolve_sweep(a, true, true), UsageError);
  a.emulate_nodes = 1;
  a.strategy = "random";
  EXPECT_THROW(resolve_sweep(a, true, true), UsageError);
  a.strategy = "halving";
  EXPECT_EQ(resolve_sweep(a, true, true).nccl.strategy, tuner::search::StrategyKind::Halving);
}

TEST(SweepOptions, SharedGpuTestMode) {
  SweepArgs a;
  a.backend = "nccl";
  EXPECT_FALSE(to_json(resolve_sweep(a, true, true)).contains("test_mode"));
  a.test_shared_gpu = 2;
  const auto plan = resolve_sweep(a, true, true);
  EXPECT_EQ(plan.nccl.test_shared_gpu, 2);
  const nlohmann::json j = to_json(plan);
  EXPECT_EQ(j["test_mode"], "shared-gpu");
  EXPECT_EQ(j["nccl"]["test_shared_gpu"], 2);
  auto error_of = [](const SweepArgs& args) {
    try {
      resolve_sweep(args, true, true);
    } catch (const UsageError& e) {
      return e.describe();
    }
    return std::string("no error");
  };
  a.emulate_nodes = 2;
  EXPECT_NE(error_of(a).find("--test-shared-gpu and --emulate-nodes cannot be combined"), std::string::npos) << error_of(a);
  a.emulate_nodes = 1;
  a.test_shared_gpu = -1;
  EXPECT_NE(error_of(a).find("--test-shared-gpu must be 1..16"), std::string::npos) << error_of(a);
  a.test_shared_gpu = 17;
  EXPECT_NE(error_of(a).find("--test-shared-gpu must be 1..16"), std::string::npos);
  a.test_shared_gpu = 2;
  a.backend = "mpi";
  EXPECT_NE(error_of(a).find("needs the NCCL backend"), std::string::npos) << error_of(a);
}

}  // namespace
}  // namespace cctune::app
