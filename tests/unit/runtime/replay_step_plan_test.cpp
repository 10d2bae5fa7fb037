// A replayed step in the sweep plan (`cctune replay`): its JSON round trip and refusals, and
// the one point it enumerates to (PointSpec::sequence), whose buffers fit every call and,
// side by side, every group's members (collectives/step_buffers.hpp).
#include <gtest/gtest.h>

#include "collectives/step_buffers.hpp"
#include "runtime/sweep_plan.hpp"
#include "runtime/worker_plan.hpp"
#include "sample_plan.hpp"

namespace cctune::runtime {
namespace {

SweepPlan step_plan() {
  SweepPlan plan = samples::sample_nccl_plan();
  plan.space.placements = {false};
  plan.space.points = PointStep{{{Collective::AllReduce, DType::Float32, ReduceOp::Sum, 0, 2108426, 1},
                                 {Collective::AllGather, DType::BFloat16, ReduceOp::Sum, 0, 1000, 3},
                                 {Collective::Broadcast, DType::Int8, ReduceOp::Sum, 1, 64, 2}},
                                {Collective::AllReduce, DType::Float32, 8 << 20}};
  return plan;
}

std::vector<ReplayCall>& calls_of(SweepPlan& plan) { return std::get<PointStep>(plan.space.points).calls; }
std::vector<ReplayCall> calls_of(const SweepPlan& plan) { return std::get<PointStep>(plan.space.points).calls; }

TEST(ReplayStepPlan, RoundTripsThroughJson) {
  const SweepPlan plan = step_plan();
  const nlohmann::json j = to_json(plan);
  ASSERT_TRUE(j.contains("replay_step"));
  EXPECT_EQ(calls_of(plan_from_json(j)), calls_of(plan));
  // The lists name the largest call, as the step's point does.
  EXPECT_EQ(j["collectives"], nlohmann::json::array({"allreduce"}));
  EXPECT_EQ(j["sizes_bytes"], nlohmann::json::array({8 << 20}));
  EXPECT_EQ(std::get<PointStep>(plan_from_json(j).space.points).largest, (JobPoint{Collective::AllReduce, DType::Float32, 8 << 20}));
  EXPECT_FALSE(to_json(samples::sample_nccl_plan()).contains("replay_step"));  // sweeps' settings stay as they were
  // A step without groups is written as before: no "group" key.
  EXPECT_EQ(j["replay_step"][0].dump(), R"({"collective":"allreduce","count":2108426,"dtype":"float32","op":"sum","repeats":1,"root":0})");
}

// The step above with its allgather and broadcast in one group, issued twice per step.
SweepPlan grouped_plan() {
  SweepPlan plan = step_plan();
  calls_of(plan)[1].group = calls_of(plan)[2].group = 0;
  calls_of(plan)[1].repeats = calls_of(plan)[2].repeats = 2;
  return plan;
}

TEST(ReplayStepPlan, GroupsRoundTripAndMustBeConsecutiveWithOneRepeatCount) {
  const nlohmann::json j = to_json(grouped_plan());
  EXPECT_FALSE(j["replay_step"][0].contains("group"));
  EXPECT_EQ(j["replay_step"][2]["group"], 0);
  EXPECT_EQ(calls_of(plan_from_json(j)), calls_of(grouped_plan()));

  nlohmann::json bad = j;
  bad["replay_step"][2]["repeats"] = 3;
  EXPECT_NE(samples::plan_refusal(bad).find("group 0 has members with different \"repeats\""), std::string::npos) << samples::plan_refusal(bad);
  bad = j;
  bad["replay_step"][0]["group"] = 0;  // group 0, a lone call, group 0 again
  bad["replay_step"][0]["repeats"] = 2;
  bad["replay_step"][1].erase("group");
  EXPECT_NE(samples::plan_refusal(bad).find("group 0 is split"), std::string::npos) << samples::plan_refusal(bad);
  bad = j;
  bad["replay_step"][1]["group"] = -1;
  EXPECT_NE(samples::plan_refusal(bad).find("\"group\""), std::string::npos) << samples::plan_refusal(bad);
  bad["replay_step"][1]["group"] = "0";
  EXPECT_NE(samples::plan_refusal(bad).find("\"group\""), std::string::npos) << samples::plan_refusal(bad);
}

TEST(ReplayStepPlan, AGroupsMembersGetTheirOwnRegionsAndTheBuffersTheirSum) {
  const auto points = enumerate_points(grouped_plan(), 4);
  const std::vector<StepCall>& seq = points.at(0).sequence;
  ASSERT_EQ(seq.size(), 3u);
  EXPECT_EQ(seq[0].group, -1);
  EXPECT_EQ(seq[1].group, 0);
  EXPECT_EQ(seq[2].group, 0);
  EXPECT_EQ(issue_unit_end(seq, 0), 1u);
  EXPECT_EQ(issue_unit_end(seq, 1), 3u);
  const StepBuffers b = step_buffers(seq);
  // The lone allreduce at 0; the allgather (2000 B sent, 8000 B received) at 0, and the
  // broadcast after it, at the next 256-byte boundary of each buffer.
  ASSERT_EQ(b.regions.size(), 3u);
  EXPECT_EQ(b.regions[0], (StepRegion{0, 0}));
  EXPECT_EQ(b.regions[1], (StepRegion{0, 0}));
  EXPECT_EQ(b.regions[2], (StepRegion{2048, 8192}));
  EXPECT_EQ(b.send_bytes, 2108426u * 4);  // the allreduce alone is still the largest
  // A group larger than any lone call sizes the buffers: its members side by side.
  SweepPlan plan = grouped_plan();
  calls_of(plan)[1].count = calls_of(plan)[2].count = 1 << 22;
  const BufferBytes need = largest_buffers(enumerate_points(plan, 4));
  EXPECT_EQ(need.send, (8u << 20) + (4u << 20));  // bf16 allgather's 8 MiB, then int8 broadcast's 4 MiB
  EXPECT_EQ(need.recv, (32u << 20) + (4u << 20));
}

TEST(ReplayStepPlan, RefusesBadCalls) {
  nlohmann::json j = to_json(step_plan());
  j["replay_step"][1]["repeats"] = 0;
  EXPECT_NE(samples::plan_refusal(j).find("\"repeats\""), std::string::npos) << samples::plan_refusal(j);
  j = to_json(step_plan());
  j["replay_step"][0]["count"] = 0;
  EXPECT_NE(samples::plan_refusal(j).find("\"count\""), std::string::npos) << samples::plan_refusal(j);
  j = to_json(step_plan());
  j["replay_step"][2]["collective"] = "allfoo";
  EXPECT_NE(samples::plan_refusal(j).find("\"collective\""), std::string::npos) << samples::plan_refusal(j);
  j = to_json(step_plan());
  j["replay_step"] = nlohmann::json::array();
  EXPECT_NE(samples::plan_refusal(j).find("\"replay_step\""), std::string::npos) << samples::plan_refusal(j);
}

TEST(ReplayStepPlan, EnumeratesOnePointIssuingTheWholeStepInOrder) {
  const auto points = enumerate_points(step_plan(), 4);
  ASSERT_EQ(points.size(), 1u);
  const PointSpec& p = points[0];
  ASSERT_EQ(p.sequence.size(), 3u);
  // Counts are what the job passed per rank; bytes follow as nccl-tests names them.
  EXPECT_EQ(p.sequence[0].bytes.param_count, 2108426u);
  EXPECT_EQ(p.sequence[0].bytes.size_bytes, 2108426u * 4);
  EXPECT_EQ(p.sequence[1].collective, Collective::AllGather);
  EXPECT_EQ(p.sequence[1].bytes.param_count, 1000u);
  EXPECT_EQ(p.sequence[1].bytes.recv_count, 4000u);  // 4 ranks' blocks
  EXPECT_EQ(p.sequence[1].repeats, 3);
  EXPECT_EQ(p.sequence[2].root, 1);
  EXPECT_EQ(p.sequence[2].dtype, DType::Int8);
  // The point itself names the largest call.
  EXPECT_EQ(p.collective, Collective::AllReduce);
  EXPECT_EQ(p.bytes.param_count, 2108426u);
  // Buffers cover every call: the allreduce's send and receive, not the point's alone.
  const BufferBytes b = largest_buffers(points);
  EXPECT_EQ(b.send, 2108426u * 4);
  EXPECT_EQ(b.recv, 2108426u * 4);
}

TEST(ReplayStepPlan, CallPointCarriesEachCallAlone) {
  const auto points = enumerate_points(step_plan(), 4);
  const PointSpec c = call_point(points[0], points[0].sequence[2]);
  EXPECT_EQ(c.collective, Collective::Broadcast);
  EXPECT_EQ(c.root, 1);
  EXPECT_TRUE(c.sequence.empty());
  EXPECT_FALSE(c.in_place);
}

}  // namespace
}  // namespace cctune::runtime
