// Planning a workload for one allocation: which shapes run here, why the others do not, the
// sizes (NCCL's nBytes = the sweep's size), buckets and their weights.
#include <gtest/gtest.h>

#include "core/collective.hpp"
#include "core/error.hpp"
#include "core/sha256.hpp"
#include "workload/workload_plan.hpp"

namespace cctune::workload {
namespace {

CallStats call(Collective c, DType t, std::uint64_t count, int nranks, std::uint64_t calls) {
  CallStats s;
  s.shape.collective = c;
  s.shape.dtype = t;
  s.shape.count = count;
  s.shape.bytes = nbytes_of(CallKind::Collective, c, t, count, nranks).value();
  s.calls = calls;
  return s;
}

Communicator comm(std::string id, int nranks, int nnodes, std::vector<CallStats> calls) {
  Communicator c;
  c.id = std::move(id);
  c.nranks = nranks;
  c.nnodes = nnodes;
  c.calls = std::move(calls);
  return c;
}

// A DDP job's start-up: one 201 MB broadcast and one full-model all-reduce in 16 steps, beside
// the step's buckets. Seen once in 16 steps, they are no part of the step: not measured unless
// asked for, and the reason says so. Twice in 16 is a tenth or more: part of the job.
TEST(WorkloadPlan, ShapesCalledInUnderATenthOfTheStepsAreLeftOut) {
  Workload w;
  w.steps = 16;
  w.communicators = {comm("0xa", 4, 2,
                          {call(Collective::Broadcast, DType::Float32, 50000000, 4, 1),
                           call(Collective::AllReduce, DType::Float32, 50000000, 4, 1),
                           call(Collective::AllReduce, DType::Float32, 4000000, 4, 48),
                           call(Collective::AllGather, DType::Float32, 1024, 4, 2)})};
  const WorkloadPlan plan = plan_workload(w, {4, 2}, 24);
  ASSERT_EQ(plan.points.size(), 2u);
  EXPECT_EQ(plan.points[0].collective, Collective::AllReduce);
  EXPECT_EQ(plan.points[0].size_bytes, 16000000u);
  EXPECT_EQ(plan.points[1].collective, Collective::AllGather);
  ASSERT_EQ(plan.unplanned.size(), 2u);
  EXPECT_NE(plan.unplanned[0].reason.find("called 1 times in 16 steps"), std::string::npos) << plan.unplanned[0].reason;
  EXPECT_NE(plan.unplanned[0].reason.find("--workload-rare-shapes"), std::string::npos);
  EXPECT_EQ(plan_workload(w, {4, 2}, 24, true).points.size(), 4u);
  // Fewer than 10 steps tell too little: every shape is planned.
  w.steps = 9;
  EXPECT_EQ(plan_workload(w, {4, 2}, 24).points.size(), 4u);
  w.steps.reset();
  EXPECT_EQ(plan_workload(w, {4, 2}, 24).points.size(), 4u);
}

TEST(WorkloadPlan, PlansTheShapesOfThisAllocationAndSaysWhyNotTheOthers) {
  Workload w;
  w.steps = 4;
  CallStats send;
  send.shape.kind = CallKind::Send;
  send.shape.count = 100;
  send.shape.bytes = 400;
  send.calls = 8;
  w.communicators = {comm("0xa", 2, 2, {call(Collective::AllGather, DType::BFloat16, 4096, 2, 4), send}),
                     comm("0xb", 8, 1, {call(Collective::AllReduce, DType::Float32, 1024, 8, 4)}),
                     comm("0xc", 2, 1, {call(Collective::AllReduce, DType::Float32, 1024, 2, 4)})};
  const WorkloadPlan plan = plan_workload(w, {2, 2}, 24);
  ASSERT_EQ(plan.points.size(), 1u);
  const JobPoint& p = plan.points[0];
  EXPECT_EQ(p.collective, Collective::AllGather);
  EXPECT_EQ(p.dtype, DType::BFloat16);
  // NCCL's nBytes for AllGather is the receive buffer: what the sweep's -b/-e (size_bytes) means.
  EXPECT_EQ(p.size_bytes, 4096u * 2 * 2);
  EXPECT_EQ(collective_bytes(Collective::AllGather, p.size_bytes, DType::BFloat16, 2).send_count, 4096u);
  EXPECT_DOUBLE_EQ(p.calls_per_step, 1.0);
  EXPECT_TRUE(plan.per_step);
  ASSERT_EQ(plan.unplanned.size(), 3u);
  EXPECT_NE(plan.unplanned[0].reason.find("point-to-point send"), std::string::npos);
  EXPECT_NE(plan.unplanned[1].reason.find("8 ranks"), std::string::npos);
  EXPECT_NE(plan.unplanned[2].reason.find("1 nodes, and NCCL sees 2"), std::string::npos);
  // The same communicator on one host with two nodes' worth of ranks: --emulate-nodes is the fix.
  const WorkloadPlan one_host = plan_workload(w, {2, 1}, 24);
  EXPECT_EQ(one_host.points.size(), 1u);  // 0xc
  EXPECT_NE(one_host.unplanned[0].reason.find("--emulate-nodes 2"), std::string::npos);
}

TEST(WorkloadPlan, NothingRunnableIsAUsageError) {
  Workload w;
  w.communicators = {comm("0xb", 8, 1, {call(Collective::AllReduce, DType::Float32, 1024, 8, 4)})};
  EXPECT_THROW(plan_workload(w, {2, 1}, 24), UsageError);
}

TEST(WorkloadPlan, BucketsByTheJobsTimeWithDurationsWhereKnown) {
  // Six sizes, two buckets: 1-4 KiB and 1-4 MiB. In the large bucket the 2 MiB calls carry most
  // of the time (measured durations), so they represent it.
  std::vector<CallStats> calls;
  for (std::uint64_t count : {256u, 512u, 1024u, 262144u, 524288u, 1048576u})
    calls.push_back(call(Collective::AllReduce, DType::Float32, count, 2, 10));
  calls[4].durations.add(5000);  // 2 MiB: 5 ms a call
  calls[4].calls = 40;
  Workload w;
  w.communicators = {comm("0xa", 2, 1, calls)};
  const WorkloadPlan plan = plan_workload(w, {2, 1}, 2);
  EXPECT_TRUE(plan.bucketed);
  EXPECT_EQ(plan.distinct_sizes, 6u);
  ASSERT_EQ(plan.points.size(), 2u);
  EXPECT_EQ(plan.points[1].size_bytes, 2u << 20);
  EXPECT_EQ(plan.points[1].shapes, 3u);
  EXPECT_FALSE(plan.per_step);  // steps unknown: calls per capture
  EXPECT_DOUBLE_EQ(plan.points[1].calls_per_step, 60.0);
  const double small = 10 * estimated_call_us(4u << 20) + 10 * estimated_call_us(1u << 20);
  EXPECT_DOUBLE_EQ(plan.points[1].time_us_per_step, 40 * 5000.0 + small);
  EXPECT_TRUE(plan.points[1].time_estimated);
  EXPECT_EQ(plan.shapes().shapes.size(), 2u);
}

// Buckets are per collective: with one size allowed, a 32 B allgather stays at its own size
// and is not planned at the 67 MB all-reduce's (as a bucket over every collective did).
TEST(WorkloadPlan, EachCollectiveIsBucketedOnItsOwn) {
  Workload w;
  w.communicators = {comm("0xa", 2, 1,
                          {call(Collective::AllGather, DType::Float32, 4, 2, 10), call(Collective::AllGather, DType::Float32, 8, 2, 10),
                           call(Collective::AllReduce, DType::Float32, 1u << 24, 2, 10),
                           call(Collective::AllReduce, DType::Float32, 1u << 20, 2, 10)})};
  const WorkloadPlan plan = plan_workload(w, {2, 1}, 1);
  EXPECT_TRUE(plan.bucketed);
  EXPECT_EQ(plan.distinct_sizes, 4u);
  ASSERT_EQ(plan.points.size(), 2u);
  EXPECT_EQ(plan.points[0].collective, Collective::AllReduce);
  EXPECT_EQ(plan.points[0].size_bytes, 64u << 20);  // the larger one carries more time
  EXPECT_EQ(plan.points[1].collective, Collective::AllGather);
  EXPECT_LE(plan.points[1].size_bytes, 64u);
  EXPECT_EQ(plan.points[1].shapes, 2u);
}

TEST(Sha256, KnownVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // 56 bytes: the padding spills into a second block.
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

}  // namespace
}  // namespace cctune::workload
