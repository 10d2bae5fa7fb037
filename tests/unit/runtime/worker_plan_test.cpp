// The worker reads the plan the sweep command writes; both ends are tested together here.
#include "runtime/worker_plan.hpp"

#include <gtest/gtest.h>

#include "app/sweep_options.hpp"
#include "core/error.hpp"
#include "runtime/halving_loop.hpp"

namespace cctune::runtime {
namespace {

app::SweepPlan sample_plan() {
  app::SweepArgs a;
  a.min_bytes = "8";
  a.max_bytes = "1K";
  a.collectives = "allreduce,allgather";
  a.iters = 7;
  a.warmup = 3;
  a.check = 1;
  a.backend = "nccl";
  a.transport = "nvlink,pcie";
  a.env_groups = {"big:NCCL_BUFFSIZE=8388608"};
  return app::resolve_sweep(a, true, true);
}

TEST(WorkerPlan, ReadsWhatTheSweepWrites) {
  const auto plan = sample_plan();
  nlohmann::json j = app::to_json(plan);
  const WorkerPlan w = worker_plan_from_json(j);
  EXPECT_EQ(w.collectives, plan.collectives);
  EXPECT_EQ(w.sizes, plan.sizes);
  EXPECT_EQ(w.dtype, plan.dtype);
  EXPECT_EQ(w.placements, plan.placements);
  EXPECT_EQ(w.measure.batch_iters, 7);
  EXPECT_EQ(w.measure.warmup_iters, 3);
  EXPECT_TRUE(w.measure.check);
  EXPECT_EQ(w.measure.stop.max_time_s, plan.measure.stop.max_time_s);
  ASSERT_EQ(w.configs.size(), 1u);
  EXPECT_EQ(w.configs[0], PointConfig{});
  ASSERT_EQ(plan.nccl.groups.size(), 3u);
  EXPECT_EQ(plan.nccl.groups[2].label, "big");
  EXPECT_EQ(j["nccl"]["groups"][1]["env"]["NCCL_P2P_DISABLE"], "1");
}

TEST(WorkerPlan, PointOrderAndDescription) {
  const auto plan = sample_plan();
  nlohmann::json j = app::to_json(plan);
  j["configs"] = {{{"algo", "auto"}, {"proto", "auto"}, {"channels", 0}}, {{"algo", "ring"}, {"proto", "simple"}, {"channels", 16}}};
  const WorkerPlan w = worker_plan_from_json(j);
  const auto points = enumerate_points(w, 4);
  const std::size_t per_config = plan.collectives.size() * plan.sizes.size() * plan.placements.size();
  ASSERT_EQ(points.size(), 2 * per_config);
  // Configs are inner: both candidates of a size run back to back.
  EXPECT_EQ(describe(points[0]), "allreduce 8 B out-of-place");
  EXPECT_EQ(describe(points[1]), "allreduce 8 B in-place");
  EXPECT_EQ(describe(points[2]), "allreduce 8 B out-of-place ring/simple/16ch");
  EXPECT_EQ(describe(points[4]), "allreduce 16 B out-of-place");
  // allgather needs one element per rank: 8 B is raised to 4 ranks x 4 B per rank
  EXPECT_EQ(points[per_config].collective, Collective::AllGather);
  for (std::size_t c = 0; c < w.collectives.size(); ++c)
    for (std::size_t s = 0; s < w.sizes.size(); ++s)
      for (std::size_t k = 0; k < w.configs.size(); ++k)
        for (std::size_t p = 0; p < w.placements.size(); ++p) {
          const PointSpec& spec = points[point_index(w, c, s, k, p)];
          EXPECT_EQ(spec.collective, w.collectives[c]);
          EXPECT_EQ(spec.config, w.configs[k]);
          EXPECT_EQ(spec.in_place, w.placements[p]);
        }
  const auto [send, recv] = largest_buffers(points, w.dtype);
  EXPECT_EQ(send, 1024u);
  EXPECT_GE(recv, 1024u);
}

TEST(WorkerPlan, StrategyAndPlannedSkips) {
  nlohmann::json j = app::to_json(sample_plan());
  const nlohmann::json tree_ll = {{"algo", "tree"}, {"proto", "ll"}, {"channels", 0}};
  j["configs"] = {{{"algo", "auto"}, {"proto", "auto"}, {"channels", 0}}, tree_ll};
  j["search"] = "halving";
  j["skips"] = {{{"collective", "allgather"}, {"config", tree_ll}, {"reason", "NCCL has no tree allgather"}}};
  const WorkerPlan w = worker_plan_from_json(j);
  EXPECT_EQ(w.search, SearchKind::Halving);
  for (const PointSpec& p : enumerate_points(w, 4)) {
    const SkipRule* skip = planned_skip(w, p);
    const bool expected = p.collective == Collective::AllGather && p.config.algo == Algorithm::Tree;
    EXPECT_EQ(skip != nullptr, expected) << describe(p);
    if (skip) {
      EXPECT_EQ(skip->reason, "NCCL has no tree allgather");
    }
  }
  j["search"] = "random";
  EXPECT_THROW(worker_plan_from_json(j), UsageError);
}

TEST(WorkerPlan, ScreeningIsOneShortBatchWithoutNoiseTarget) {
  MeasureSettings full;
  full.warmup_iters = 5;
  full.check = true;
  full.stop.max_time_s = 0.5;
  const MeasureSettings s = screening_settings(full, 4);
  EXPECT_EQ(s.warmup_iters, 2);
  EXPECT_EQ(s.batch_iters, 4);
  EXPECT_EQ(s.min_batches, 1);
  EXPECT_EQ(s.stop.min_iterations, 4);
  EXPECT_EQ(s.stop.max_iterations, 4);  // ends on iterations, never waits for the noise target
  EXPECT_FALSE(s.check);
  EXPECT_EQ(s.stop.max_time_s, 0.5);
}

TEST(WorkerPlan, Malformed) { EXPECT_THROW(worker_plan_from_json({{"collectives", 3}}), UsageError); }

TEST(SweepOptions, NcclOptionsAreValidated) {
  app::SweepArgs a;
  a.backend = "nccl";
  a.point_timeout_s = 0;
  EXPECT_THROW(app::resolve_sweep(a, true, true), UsageError);
  a.point_timeout_s = 5;
  a.transport = "infiniband";
  EXPECT_THROW(app::resolve_sweep(a, true, true), UsageError);
  a.transport = "pcie";
  a.env_groups = {"pcie:NCCL_X=1"};
  EXPECT_THROW(app::resolve_sweep(a, true, true), UsageError);
  a.env_groups = {};
  a.emulate_nodes = 0;
  EXPECT_THROW(app::resolve_sweep(a, true, true), UsageError);
}

TEST(SweepOptions, SharedGpuTestMode) {
  app::SweepArgs a;
  a.backend = "nccl";
  EXPECT_FALSE(app::to_json(app::resolve_sweep(a, true, true)).contains("test_mode"));
  a.test_shared_gpu = 2;
  const auto plan = app::resolve_sweep(a, true, true);
  EXPECT_EQ(plan.nccl.test_shared_gpu, 2);
  const nlohmann::json j = app::to_json(plan);
  EXPECT_EQ(j["test_mode"], "shared-gpu");
  EXPECT_EQ(j["nccl"]["test_shared_gpu"], 2);
  auto error_of = [](const app::SweepArgs& args) {
    try {
      app::resolve_sweep(args, true, true);
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
}  // namespace cctune::runtime
