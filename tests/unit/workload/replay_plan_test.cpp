// One step of a workload as replay issues it: capture order from first_call (kept by the
// builder, merge and JSON), calls per step rounded, what is left out and why, the refusals.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "workload/replay_plan.hpp"
#include "workload/workload_json.hpp"

namespace cctune::workload {
namespace {

CallShape collective(Collective c, std::uint64_t count) {
  CallShape s;
  s.collective = c;
  s.dtype = DType::Float32;
  if (is_reduction(c)) s.op = ReduceOp::Sum;
  if (is_rooted(c)) s.root = 0;
  s.count = count;
  s.bytes = count * 4;
  return s;
}

// Two ranks of one 2-rank communicator, 4 steps: a start-up broadcast once, then per step a
// large allreduce and two small ones. Shape order puts the small one first (by count); the
// capture issues the large one first, so the two orders differ.
Workload two_rank_job() {
  WorkloadBuilder b;
  for (int rank = 0; rank < 2; ++rank) {
    b.add_call("c2", 2, 1, rank, collective(Collective::Broadcast, 7));
    for (int step = 0; step < 4; ++step) {
      b.add_call("c2", 2, 1, rank, collective(Collective::AllReduce, 1 << 20));
      b.add_call("c2", 2, 1, rank, collective(Collective::AllReduce, 1024));
      b.add_call("c2", 2, 1, rank, collective(Collective::AllReduce, 1024));
    }
    b.add_call("c4", 4, 1, rank, collective(Collective::AllGather, 64));
  }
  Workload w = b.finish("nccl-log", {});
  w.steps = 4;
  return w;
}

TEST(ReplayPlan, CaptureOrderAndCallsPerStep) {
  const ReplayStep step = plan_replay(two_rank_job(), 2);
  ASSERT_TRUE(step.capture_order);
  ASSERT_EQ(step.calls.size(), 2u);
  EXPECT_EQ(step.calls[0].shape.count, 1u << 20);  // first issued, though its shape sorts after
  EXPECT_EQ(step.calls[0].repeats, 1u);
  EXPECT_EQ(step.calls[1].shape.count, 1024u);
  EXPECT_EQ(step.calls[1].repeats, 2u);
  // The start-up broadcast (0.25 per step) and the 4-rank communicator are left out, said.
  ASSERT_EQ(step.notes.size(), 2u);
  EXPECT_NE(step.notes[1].find("c4 (4 ranks) left out"), std::string::npos) << step.notes[1];
  EXPECT_NE(step.notes[0].find("broadcast float32 root 0 28 B on c2 left out: 0.25 calls per step"), std::string::npos) << step.notes[0];
}

TEST(ReplayPlan, FirstCallSurvivesJsonAndMergeTakesTheEarliest) {
  const Workload w = two_rank_job();
  EXPECT_EQ(workload_from_json(nlohmann::json::parse(to_json(w).dump())), w);
  Workload a = w, b = w;
  a.communicators[0].ranks = {0};
  b.communicators[0].ranks = {1};
  a.communicators.resize(1), b.communicators.resize(1);
  b.communicators[0].calls[0].first_call = 0;  // rank 1 saw the shape earlier
  const Workload m = merge({a, b});
  EXPECT_EQ(m.communicators[0].calls[0].first_call, 0u);
}

TEST(ReplayPlan, NoRecordedOrderFallsBackToShapeOrderAndSaysSo) {
  Workload w = two_rank_job();
  for (auto& c : w.communicators)
    for (auto& s : c.calls) s.first_call.reset();
  const ReplayStep step = plan_replay(w, 2);
  EXPECT_FALSE(step.capture_order);
  ASSERT_EQ(step.calls.size(), 2u);
  EXPECT_EQ(step.calls[0].shape.count, 1024u);
  EXPECT_NE(step.notes.back().find("no call order"), std::string::npos);
  EXPECT_NE(format_replay(step).find("in shape order"), std::string::npos);
}

TEST(ReplayPlan, Refusals) {
  Workload w = two_rank_job();
  EXPECT_THROW(plan_replay(w, 8), UsageError);  // no communicator of 8 ranks
  w.steps.reset();
  EXPECT_THROW(plan_replay(w, 2), UsageError);  // no step count
}

}  // namespace
}  // namespace cctune::workload
