// One step of a workload as replay issues it: capture order from first_call (kept by the
// builder, merge and JSON), calls per step rounded, what is left out and why, the refusals;
// captured groups: their members taken from the shapes (NCCL's int8 view of a bf16 allgather
// too), placed at their earliest member, rounded, p2p groups left out.
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
    b.add_call("0xc2", 2, 1, rank, collective(Collective::Broadcast, 7));
    for (int step = 0; step < 4; ++step) {
      b.add_call("0xc2", 2, 1, rank, collective(Collective::AllReduce, 1 << 20));
      b.add_call("0xc2", 2, 1, rank, collective(Collective::AllReduce, 1024));
      b.add_call("0xc2", 2, 1, rank, collective(Collective::AllReduce, 1024));
    }
    CallShape gathered = collective(Collective::AllGather, 64);
    gathered.bytes = 64 * 4 * 4;  // NCCL's nBytes: count x type size x 4 ranks
    b.add_call("0xc4", 4, 1, rank, gathered);
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
  EXPECT_NE(step.notes[0].find("broadcast float32 root 0 28 B on 0xc2 left out: 0.25 calls per step"), std::string::npos) << step.notes[0];
}

// The step as the workers issue it: the core calls in issue order, named by the largest.
TEST(ReplayPlan, IssuedIsTheCoreStepNamedByItsLargestCall) {
  const ReplayStep step = plan_replay(two_rank_job(), 2);
  const PointStep issued = step.issued();
  ASSERT_EQ(issued.calls.size(), step.calls.size());
  for (std::size_t i = 0; i < issued.calls.size(); ++i) {
    EXPECT_EQ(issued.calls[i].count, step.calls[i].shape.count);
    EXPECT_EQ(issued.calls[i].repeats, static_cast<int>(step.calls[i].repeats));
    EXPECT_EQ(issued.calls[i].group, step.calls[i].group);
    EXPECT_EQ(issued.calls[i].op, step.calls[i].shape.op.value_or(ReduceOp::Sum));
  }
  EXPECT_EQ(step.largest(), 0u);  // 1 Mi elements before 1024
  EXPECT_EQ(issued.largest, (JobPoint{step.calls[0].shape.collective, step.calls[0].shape.dtype, step.calls[0].shape.bytes}));
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

TEST(ReplayPlan, AWorkloadWithoutGroupsPrintsAsBefore) {
  EXPECT_EQ(format_replay(plan_replay(two_rank_job(), 2)),
            "# replay: one step on 2 ranks, 2 call shapes, in capture order\n"
            "  1 x allreduce float32 sum 4 MiB (1048576 elements) on 0xc2\n"
            "  2 x allreduce float32 sum 4 KiB (1024 elements) on 0xc2\n"
            "# note: broadcast float32 root 0 28 B on 0xc2 left out: 0.25 calls per step (start-up or occasional calls)\n"
            "# note: communicator 0xc4 (4 ranks) left out: this job has 2\n");
}

// A shape as the profiler half records it: no op, and data that is not reduced as int8 bytes.
CallShape profiled(Collective c, DType t, std::uint64_t count, std::uint64_t bytes) {
  CallShape s;
  s.collective = c;
  s.dtype = t;
  s.count = count;
  s.bytes = bytes;
  return s;
}

// On 2 ranks over 4 steps, per step: a group of an allreduce and a bf16 allgather of 4096
// elements (16 KiB over 2 ranks; the profiler's shape is int8, 8192 bytes per rank), then the
// same allreduce alone. `group_issues` and `extra` (more lone allreduces) vary the counts.
Workload grouped_job(int group_issues, int extra = 0) {
  const CallShape ar = profiled(Collective::AllReduce, DType::Float32, 131072, 524288);
  const CallShape ag_task = profiled(Collective::AllGather, DType::Int8, 8192, 16384);
  const CallShape ag_member = profiled(Collective::AllGather, DType::BFloat16, 4096, 16384);
  WorkloadBuilder b;
  for (int rank = 0; rank < 2; ++rank) {
    for (int i = 0; i < group_issues; ++i) {
      b.add_call("0xc2", 2, 1, rank, ar);
      b.add_call("0xc2", 2, 1, rank, ag_task);
      b.add_group("0xc2", 2, 1, rank, {ar, ag_member});
    }
    for (int i = 0; i < 4 + extra; ++i) b.add_call("0xc2", 2, 1, rank, ar);
  }
  Workload w = b.finish("nccl-profiler", {});
  w.steps = 4;
  return w;
}

TEST(ReplayPlan, AGroupTakesItsMembersFromTheShapesThatStandForThem) {
  const ReplayStep step = plan_replay(grouped_job(4), 2);
  ASSERT_EQ(step.calls.size(), 3u);
  EXPECT_EQ(step.groups, 1);
  // The group first (it starts where the allreduce first appeared), members in issue order,
  // in the caller's view (bf16, 4096 elements), not the profiler's int8 bytes.
  EXPECT_EQ(step.calls[0].group, 0);
  EXPECT_EQ(step.calls[1].group, 0);
  EXPECT_EQ(step.calls[0].repeats, 1u);
  EXPECT_EQ(step.calls[1].shape.dtype, DType::BFloat16);
  EXPECT_EQ(step.calls[1].shape.count, 4096u);
  // What the group took is gone from the shapes: the allreduce's 8 calls less the group's 4
  // leave one per step alone; the int8 allgather's calls are all the group's.
  EXPECT_EQ(step.calls[2].group, -1);
  EXPECT_EQ(step.calls[2].shape.collective, Collective::AllReduce);
  EXPECT_EQ(step.calls[2].repeats, 1u);
  EXPECT_TRUE(step.notes.empty()) << step.notes.front();
  const std::string text = format_replay(step);
  EXPECT_NE(text.find("# replay: one step on 2 ranks, 1 call shapes and 1 group, in capture order\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\n  1 x group of 2: allreduce float32 512 KiB (131072 elements), allgather bfloat16 16 KiB (4096 elements) on 0xc2\n"),
            std::string::npos)
      << text;
}

TEST(ReplayPlan, AnEqualDtypeShapeIsTakenBeforeTheInt8View) {
  // A bf16 allgather shape of the same bytes as the int8 one: the bf16 member's calls come
  // from it, and the int8 shape's own calls stay lone calls.
  Workload w = grouped_job(4);
  CallStats bf16 = w.communicators[0].calls[0];
  for (const CallStats& s : w.communicators[0].calls)
    if (s.shape.collective == Collective::AllGather) bf16 = s;
  bf16.shape.dtype = DType::BFloat16;
  bf16.shape.count = 4096;
  w.communicators[0].calls.push_back(bf16);
  std::sort(w.communicators[0].calls.begin(), w.communicators[0].calls.end(),
            [](const CallStats& a, const CallStats& b) { return a.shape < b.shape; });
  const ReplayStep step = plan_replay(w, 2);
  ASSERT_EQ(step.calls.size(), 4u);
  EXPECT_EQ(step.calls[3].group, -1);
  EXPECT_EQ(step.calls[3].shape.dtype, DType::Int8);
  EXPECT_EQ(step.calls[3].repeats, 1u);
}

TEST(ReplayPlan, GroupsAreRoundedOrLeftOutLikeShapes) {
  ReplayStep step = plan_replay(grouped_job(6), 2);  // 1.5 groups per step
  ASSERT_FALSE(step.calls.empty());
  EXPECT_EQ(step.calls[0].repeats, 2u);
  ASSERT_EQ(step.notes.size(), 1u);
  EXPECT_EQ(step.notes[0], "group of 2 starting with allreduce float32 512 KiB on 0xc2: 1.50 times per step, replayed 2 per step");

  // Once in 4 steps: a start-up group, left out with its members' calls; one lone allreduce
  // more than the steps leaves 1.25 per step outside the group.
  step = plan_replay(grouped_job(1, 1), 2);
  EXPECT_EQ(step.groups, 0);
  ASSERT_EQ(step.calls.size(), 1u);
  EXPECT_EQ(step.calls[0].shape.collective, Collective::AllReduce);
  EXPECT_EQ(step.calls[0].repeats, 1u);
  ASSERT_EQ(step.notes.size(), 2u);
  EXPECT_NE(step.notes[0].find("group of 2 starting with allreduce float32 512 KiB on 0xc2 left out: 0.25 times per step"),
            std::string::npos)
      << step.notes[0];
  EXPECT_NE(step.notes[1].find("allreduce float32 512 KiB on 0xc2: 1.25 calls per step outside groups, replayed 1 per step"), std::string::npos)
      << step.notes[1];
}

TEST(ReplayPlan, GroupsWithSendsOrReceivesAreLeftOutTheirCollectivesIssuedAlone) {
  CallShape send = profiled(Collective::SendRecv, DType::Int8, 4096, 4096);
  send.kind = CallKind::Send;
  const CallShape ar = profiled(Collective::AllReduce, DType::Float32, 1024, 4096);
  WorkloadBuilder b;
  for (int rank = 0; rank < 2; ++rank)
    for (int i = 0; i < 4; ++i) {
      b.add_call("0xc2", 2, 1, rank, ar);
      b.add_call("0xc2", 2, 1, rank, send);
      b.add_group("0xc2", 2, 1, rank, {ar, send});
    }
  Workload w = b.finish("nccl-profiler", {});
  w.steps = 4;
  const ReplayStep step = plan_replay(w, 2);
  EXPECT_EQ(step.groups, 0);
  ASSERT_EQ(step.calls.size(), 1u);
  EXPECT_EQ(step.calls[0].repeats, 1u);
  EXPECT_EQ(step.calls[0].group, -1);
  ASSERT_EQ(step.notes.size(), 2u);
  EXPECT_NE(step.notes[0].find("send int8 4 KiB on 0xc2 left out: point-to-point calls are not replayed"), std::string::npos) << step.notes[0];
  EXPECT_EQ(step.notes[1], "group of 2 starting with allreduce float32 4 KiB on 0xc2 left out: it holds sends or receives, which are not "
                          "replayed (its collectives are issued alone)");
}

TEST(ReplayPlan, MembersNoShapeStandsForAreIssuedWithTheGroupAndSaid) {
  // A collective AlltoAll member (the profiler records its tasks as send/recv shapes), and a
  // group placed after the lone call that appeared first.
  Workload w = grouped_job(4);
  Communicator& c = w.communicators[0];
  CallGroup g{{profiled(Collective::AllToAll, DType::Float32, 256, 2048), profiled(Collective::AllToAll, DType::Float32, 512, 4096)}, 4};
  c.groups.push_back(g);
  const ReplayStep step = plan_replay(w, 2);
  EXPECT_EQ(step.groups, 2);
  ASSERT_EQ(step.calls.size(), 5u);
  EXPECT_EQ(step.calls[4].group, 1);  // no shape: no position, after every call of its communicator
  EXPECT_EQ(step.calls[4].shape.collective, Collective::AllToAll);
  ASSERT_EQ(step.notes.size(), 1u);
  EXPECT_NE(step.notes[0].find(": 8 of its member calls are not among the communicator's call shapes"), std::string::npos) << step.notes[0];
}

TEST(ReplayPlan, AGroupGoesWhereItsEarliestMemberFirstAppeared) {
  Workload w = grouped_job(4);
  for (CallStats& s : w.communicators[0].calls)  // the allreduce first seen after a broadcast
    s.first_call = *s.first_call + 1;
  CallStats bcast;
  bcast.shape = profiled(Collective::Broadcast, DType::Int8, 64, 64);
  bcast.shape.root = 0;
  bcast.calls = 4;
  bcast.first_call = 0;
  w.communicators[0].calls.insert(w.communicators[0].calls.begin(), bcast);
  const ReplayStep step = plan_replay(w, 2);
  ASSERT_EQ(step.calls.size(), 4u);
  EXPECT_EQ(step.calls[0].shape.collective, Collective::Broadcast);
  EXPECT_EQ(step.calls[1].group, 0);
}

TEST(ReplayPlan, Refusals) {
  Workload w = two_rank_job();
  EXPECT_THROW(plan_replay(w, 8), UsageError);  // no communicator of 8 ranks
  w.steps.reset();
  EXPECT_THROW(plan_replay(w, 2), UsageError);  // no step count
}

}  // namespace
}  // namespace cctune::workload
