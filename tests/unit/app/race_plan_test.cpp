// What a round of the racing sweep measures (app/sweep/race_plan.hpp): its groups, NCCL's own
// choice, and in later rounds the shapes that carry the undecided intervals.
#include "app/sweep/race_plan.hpp"

#include <gtest/gtest.h>

#include <variant>

namespace cctune::app {
namespace {

JobPoint shape(Collective c, std::uint64_t bytes) { return JobPoint{c, DType::Float32, bytes}; }

runtime::SweepPlan workload_plan() {
  runtime::SweepPlan plan;
  plan.space.points =
      PointShapes{{shape(Collective::AllReduce, 4096), shape(Collective::AllReduce, 67108864), shape(Collective::AllGather, 1048576)}};
  for (const char* g : {"default", "sockets-4x4", "sockets-8x8"}) plan.nccl.groups.push_back(runtime::ConfigGroup{g, {}, {}});
  plan.nccl.configs = {PointConfig{}, PointConfig{}};
  return plan;
}

TEST(RoundPlan, ALaterRoundKeepsItsGroupsAndShapesAndNcclsOwnChoice) {
  const runtime::SweepPlan plan = workload_plan();
  const tuner::search::RaceRound r{1, {"sockets-8x8", "default"}, 0.5, false, {shape(Collective::AllReduce, 67108864)}};
  const runtime::SweepPlan out = round_plan(plan, r);
  ASSERT_EQ(out.nccl.groups.size(), 2u);
  EXPECT_EQ(out.nccl.groups[0].label, "sockets-8x8");
  EXPECT_EQ(out.nccl.configs.size(), 1u);
  EXPECT_DOUBLE_EQ(out.measure.stop.max_time_s, 0.5);
  EXPECT_EQ(std::get<PointShapes>(out.space.points).shapes, r.shapes);
  const tuner::search::RaceRound all{0, {"default"}, 0.1, false, {}};
  EXPECT_EQ(std::get<PointShapes>(round_plan(plan, all).space.points).shapes.size(), 3u) << "no focus: every shape";
}

tuner::GroupTerm term(Collective c, std::uint64_t bytes, double weight, double ref_hw, double group_hw) {
  tuner::GroupTerm t;
  t.shape = tuner::ShapeKey{c, 2, 2};
  t.size_bytes = bytes;
  t.weight = weight;
  t.defaults.halfwidth_us = ref_hw;
  t.group.halfwidth_us = group_hw;
  return t;
}

TEST(RaceFocusOf, TheRacingGroupsWeightedHalfWidthsPickTheShapes) {
  tuner::TuneOutputs t;
  tuner::GroupScore racing, settled;
  racing.group = "sockets-8x8";
  racing.terms = {term(Collective::AllReduce, 4096, 10, 0.5, 0.5), term(Collective::AllReduce, 67108864, 3, 400, 300),
                  term(Collective::AllGather, 1048576, 1, 20, 20)};
  settled.group = "sockets-4x4";  // not racing: its terms do not count
  settled.terms = {term(Collective::AllReduce, 4096, 10, 0.5, 5000)};
  t.groups = {racing, settled};
  // widths: 4 KiB 10, 64 MiB 2100, 1 MiB 40: the 64 MiB bucket carries 97 %.
  EXPECT_EQ(race_focus_of(workload_plan(), t, {"sockets-8x8"}), std::vector<JobPoint>{shape(Collective::AllReduce, 67108864)});
  runtime::SweepPlan grid = workload_plan();
  grid.space.points = PointGrid{};
  EXPECT_TRUE(race_focus_of(grid, t, {"sockets-8x8"}).empty()) << "a grid's rounds keep every size";
}

}  // namespace
}  // namespace cctune::app
