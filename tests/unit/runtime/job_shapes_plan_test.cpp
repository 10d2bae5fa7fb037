// `sweep --workload`: a plan with job shapes measures exactly those shapes (not the product of
// its collectives, sizes and types), each at the size the workload states, and carries them in
// its JSON only when there are some.
#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "core/error.hpp"
#include "core/sizes.hpp"
#include "runtime/worker_plan.hpp"
#include "sample_plan.hpp"

namespace cctune::runtime {
namespace {

// Four ranks, two types, sizes the shapes do not use: only the shapes may come out.
SweepPlan job_plan() {
  SweepPlan plan = samples::sample_mpi_plan();
  plan.space.points = PointShapes{{{Collective::AllReduce, DType::Float32, 8396800},
                                   {Collective::AllGather, DType::BFloat16, 16384},
                                   {Collective::ReduceScatter, DType::Float32, 4096},
                                   {Collective::Broadcast, DType::Float32, 8}}};
  check_plan(plan);
  return plan;
}

const std::vector<JobPoint>& shapes_of(const SweepPlan& plan) { return std::get<PointShapes>(plan.space.points).shapes; }

using Shape = std::tuple<Collective, DType, std::uint64_t>;

TEST(JobShapes, OnlyTheJobsShapesAreMeasuredAtTheirStatedSize) {
  const SweepPlan plan = job_plan();
  const auto points = enumerate_points(plan, 4);
  ASSERT_EQ(points.size(), shapes_of(plan).size() * plan.space.placements.size());  // the product would be 4 x 2 x 4 x 2
  std::set<Shape> measured, wanted;
  for (const auto& p : points) measured.insert({p.collective, p.dtype, p.bytes.size_bytes});
  for (const auto& s : shapes_of(plan)) wanted.insert({s.collective, s.dtype, s.size_bytes});
  EXPECT_EQ(measured, wanted);
}

// The workload's size is NCCL's nBytes, already x nranks for allgather and reducescatter: a rule
// that scaled it again (or divided it) by the rank count moves 4x too much (or too little).
TEST(JobShapes, GatherAndScatterSizesAreNotScaledByTheRankCount) {
  const SweepPlan plan = job_plan();
  const auto points = enumerate_points(plan, 4);
  const PointSpec& gather = points[2];  // the allgather shape, out of place
  ASSERT_EQ(gather.collective, Collective::AllGather);
  EXPECT_EQ(gather.bytes.size_bytes, 16384u);
  EXPECT_EQ(gather.bytes.param_count, 16384u / 2 / 4);  // NCCL's count: per rank, in bf16 elements
  EXPECT_EQ(gather.bytes.recv_count, 16384u / 2);
  const PointSpec& scatter = points[4];
  ASSERT_EQ(scatter.collective, Collective::ReduceScatter);
  EXPECT_EQ(scatter.bytes.size_bytes, 4096u);
  EXPECT_EQ(scatter.bytes.send_count, 4096u / 4);
  EXPECT_EQ(scatter.bytes.param_count, 4096u / 4 / 4);
}

TEST(JobShapes, OpsRootsConfigsAndPlacementsStillApplyToEachShape) {
  SweepPlan plan = job_plan();
  plan.backend = BackendChoice::Nccl;
  plan.space.ops = {ReduceOp::Sum, ReduceOp::Max};
  plan.space.all_roots = true;
  plan.nccl.configs = {PointConfig{}, PointConfig{Algorithm::Ring, Protocol::Simple, 0, false}};
  const auto points = enumerate_points(plan, 3);
  // allreduce and reducescatter: 2 ops; allgather: 1; broadcast: 3 roots; each x 2 configs x 2 placements.
  const std::size_t series = 2 + 1 + 2 + 3;
  ASSERT_EQ(points.size(), series * 2 * 2);
  const std::vector<PointBlock> blocks = point_blocks(plan, points);
  ASSERT_EQ(blocks.size(), series);
  for (const PointBlock& b : blocks) EXPECT_EQ(b.sizes, 1u);
  // Each block is one shape; point_index names its points in enumerate_points' order.
  std::size_t i = 0;
  for (std::size_t b = 0; b < series; ++b)
    for (std::size_t k = 0; k < 2; ++k)
      for (std::size_t p = 0; p < 2; ++p, ++i) {
        ASSERT_EQ(point_index(plan, blocks[b], 0, k, p), i);
        EXPECT_EQ(points[i].config, plan.nccl.configs[k]);
        EXPECT_EQ(points[i].in_place, plan.space.placements[p]);
      }
  EXPECT_EQ(points[0].op, ReduceOp::Sum);
  EXPECT_EQ(points[4].op, ReduceOp::Max);
  EXPECT_EQ(points.back().collective, Collective::Broadcast);
  EXPECT_EQ(points.back().root, 2);
}

// The point limit counts what is measured: a few shapes whose collectives, sizes and types
// would make a product past the limit are a small plan.
TEST(JobShapes, ThePointLimitCountsTheShapesNotTheProduct) {
  SweepPlan plan = job_plan();
  plan.backend = BackendChoice::Nccl;
  plan.space.ops = {ReduceOp::Sum, ReduceOp::Max};
  plan.nccl.configs = {PointConfig{}, PointConfig{Algorithm::Ring, Protocol::Simple, 0, false},
                       PointConfig{Algorithm::Tree, Protocol::Simple, 0, false}};
  EXPECT_NO_THROW(check_plan(plan));  // 4 shapes x 2 ops x 3 configs x 2 placements
  // The grid of every collective, type and size the shapes could come from: 8 x 40001 x 4 x 2 x 3 x 2 = 15.4M points.
  PointGrid grid;
  grid.collectives = {Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter, Collective::Broadcast,
                      Collective::Reduce, Collective::AllToAll, Collective::Gather, Collective::Scatter};
  for (std::uint64_t s = 1; s <= 40000; ++s) grid.sizes.push_back(s * 8);
  grid.sizes.push_back(8396800);
  grid.dtypes = {DType::Float32, DType::BFloat16, DType::Float16, DType::Int32};
  plan.space.points = grid;
  EXPECT_THROW(check_plan(plan), UsageError);
}

// A worker reads the plan the supervisor checked: its count is the shapes', never the product
// of the lists beside them (which a plan once read back as 10.8M points and refused).
TEST(JobShapes, APlanReadBackCountsTheShapesNotTheProductOfItsLists) {
  SweepPlan plan = job_plan();
  plan.backend = BackendChoice::Nccl;
  plan.space.impls = {P2pImpl::Native};
  plan.nccl.configs = {PointConfig{}, PointConfig{Algorithm::Ring, Protocol::Simple, 0, false},
                       PointConfig{Algorithm::Tree, Protocol::Simple, 0, false}};
  nlohmann::json j = to_json(plan);
  j["collectives"] = nlohmann::json::array();
  for (Collective c : all_collectives()) j["collectives"].push_back(to_string(c));
  j["sizes_bytes"] = nlohmann::json::array();
  for (std::uint64_t s = 1; s <= max_size_count; ++s) j["sizes_bytes"].push_back(s * 8);
  // 9 collectives x 100000 sizes x 2 types x 2 placements x 3 configs: 10.8M as a grid.
  const SweepPlan back = plan_from_json(j);
  EXPECT_EQ(shapes_of(back), shapes_of(plan));
  EXPECT_DOUBLE_EQ(points_per_config(back.space, 0), 4.0 * 2);
}

TEST(JobShapes, TravelInTheJsonOnlyWhenPresent) {
  EXPECT_FALSE(to_json(samples::sample_mpi_plan()).contains("job_shapes"));
  const SweepPlan plan = job_plan();
  const nlohmann::json j = to_json(plan);
  ASSERT_TRUE(j.contains("job_shapes"));
  EXPECT_EQ(j["job_shapes"][1], (nlohmann::json{{"collective", "allgather"}, {"dtype", "bfloat16"}, {"size_bytes", 16384}}));
  EXPECT_EQ(shapes_of(plan_from_json(j)), shapes_of(plan));
  // The lists say what the shapes use: collectives and types in first-use order, sizes rising.
  EXPECT_EQ(j["collectives"], (nlohmann::json{"allreduce", "allgather", "reducescatter", "broadcast"}));
  EXPECT_EQ(j["dtype"], (nlohmann::json{"float32", "bfloat16"}));
  EXPECT_EQ(j["sizes_bytes"], (nlohmann::json{8, 4096, 16384, 8396800}));

  nlohmann::json bad = j;
  bad["job_shapes"][0]["size_bytes"] = 0;
  EXPECT_NE(samples::plan_refusal(bad).find("\"job_shapes\" holds size_bytes 0"), std::string::npos) << samples::plan_refusal(bad);
  bad = j;
  bad["job_shapes"][0]["collective"] = "alltoall";
  EXPECT_NE(samples::plan_refusal(bad).find("the plan does not list"), std::string::npos) << samples::plan_refusal(bad);
  bad = j;
  bad["job_shapes"][1] = bad["job_shapes"][0];
  EXPECT_NE(samples::plan_refusal(bad).find("twice"), std::string::npos) << samples::plan_refusal(bad);
  bad = j;
  bad["job_shapes"] = nlohmann::json::array();
  EXPECT_NE(samples::plan_refusal(bad).find("\"job_shapes\" must be a list of 1 to"), std::string::npos) << samples::plan_refusal(bad);
}

}  // namespace
}  // namespace cctune::runtime
