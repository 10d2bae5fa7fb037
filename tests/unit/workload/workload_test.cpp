// The workload model: JSON round trip and refusals, merging ranks, the shape bound.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "workload/nccl_names.hpp"
#include "workload/workload_json.hpp"

namespace cctune::workload {
namespace {

CallShape allreduce(std::uint64_t count) {
  CallShape s;
  s.dtype = DType::Float32;
  s.op = ReduceOp::Sum;
  s.count = count;
  s.bytes = nbytes_of(CallKind::Collective, Collective::AllReduce, DType::Float32, count, 4).value();
  return s;
}

TEST(Workload, JsonRoundTrip) {
  WorkloadBuilder b;
  CallStats& s = b.add_call("0xabc", 4, 2, 0, allreduce(1024));
  s.applied.push_back(Applied{Algorithm::Ring, Protocol::Simple, 8, 1});
  s.durations.add(12.5);
  b.add_call("0xabc", 4, 2, 1, allreduce(1024));
  Workload w = b.finish("nccl-log", {"a.log"});
  w.steps = 2;
  const Workload back = workload_from_json(nlohmann::json::parse(to_json(w).dump()));
  EXPECT_EQ(back, w);
  EXPECT_DOUBLE_EQ(to_json(w)["communicators"][0]["calls"][0]["calls_per_step"].get<double>(), 0.5);
}

// The profiler half's additions: GPU-time histogram, clock, calls not recorded.
TEST(Workload, ProfilerFieldsRoundTripAndMerge) {
  auto part = [](int rank, double us, const char* clock) {
    Workload w;
    w.format = "nccl-profiler";
    Communicator c{"0x1", 2, 1, {rank}, {}, 0, {}};
    CallStats s{allreduce(64), 3, {}, {}, {}};
    s.durations.add(us);
    s.durations.clock = clock;
    s.durations.histogram[duration_bucket(us)] = 1;
    c.calls.push_back(s);
    c.calls_not_recorded = 5;
    w.communicators.push_back(c);
    return w;
  };
  const Workload a = part(0, 10.0, "gpu");
  EXPECT_EQ(workload_from_json(nlohmann::json::parse(to_json(a).dump())), a);
  const Workload m = merge({a, part(1, 1000.0, "gpu")});
  const Durations& d = m.communicators.at(0).calls.at(0).durations;
  EXPECT_EQ(d.clock, "gpu");
  EXPECT_EQ(d.histogram.size(), 2u);
  EXPECT_EQ(m.communicators[0].calls_not_recorded, 10u);
  EXPECT_EQ(merge({a, part(1, 5.0, "host")}).communicators[0].calls[0].durations.clock, "mixed");
  // Four buckets per octave: 10 us lies in [2^3.25, 2^3.5).
  EXPECT_EQ(duration_bucket(10.0), 1 + 13);
  EXPECT_EQ(duration_bucket(0.5), 0);
  EXPECT_EQ(duration_bucket(1e12), duration_buckets - 1);
  EXPECT_DOUBLE_EQ(histogram_quantile_us({{4, 9}, {8, 1}}, 0.5), 2.0);
  EXPECT_DOUBLE_EQ(histogram_quantile_us({{4, 9}, {8, 1}}, 0.99), 4.0);
  nlohmann::json bad = to_json(a);
  bad["communicators"][0]["calls"][0]["duration_us"]["histogram"] = {{200, 1}};
  EXPECT_THROW(workload_from_json(bad), UsageError);
}

TEST(Workload, ProfilerSpellingsOfTypesAndAlgorithms) {
  EXPECT_EQ(dtype_from_nccl_name("ncclBfloat16"), DType::BFloat16);
  EXPECT_EQ(dtype_from_nccl_name("ncclFloat8e5m2"), DType::Float8e5m2);
  EXPECT_EQ(dtype_from_nccl_name("ncclInt8"), DType::Int8);
  EXPECT_EQ(dtype_from_nccl_name("Float32"), std::nullopt);
  EXPECT_EQ(algorithm_from_nccl_name("NVLSTree"), Algorithm::NvlsTree);
  EXPECT_EQ(algorithm_from_nccl_name("CollNetDirect"), Algorithm::CollnetDirect);
  EXPECT_EQ(algorithm_from_nccl_name("Ring"), Algorithm::Ring);
  EXPECT_EQ(algorithm_from_nccl_name("Rin"), std::nullopt);
  EXPECT_EQ(algorithm_from_nccl_name(""), std::nullopt);
}

// A job's gradient communicator and a second group's (metrics, evaluation): the step time comes
// from the busiest one. Each communicator's cadence is what the profiler finds in its calls.
Communicator profiled(const std::string& id, std::uint64_t calls_a_rank, const std::vector<TimedCall>& timeline) {
  Communicator c{id, 2, 1, {0}, {CallStats{allreduce(1), calls_a_rank, {}, {}, {}}}, 0, {}};
  const StepFinding f = find_step({&timeline, timeline.size(), std::nullopt});
  c.cadence = f.cadence;
  if (!f.cadence) c.no_step = f.no_step;
  return c;
}

// 30 steps of {1, 1, 2} after a start-up broadcast, ending with a barrier (shape 90).
std::vector<TimedCall> gradients() {
  std::vector<TimedCall> c{{100, 0}};
  for (int s = 0; s < 30; ++s)
    for (std::uint32_t shape : {1u, 1u, 2u}) c.push_back({shape, (c.size() + 1) * 1000000ull});
  c.push_back({90, (c.size() + 1) * 1000000ull});
  return c;
}

TEST(Workload, TheGradientCommunicatorGivesTheStepOverAMetricsGroup) {
  std::vector<TimedCall> metrics;  // one loss reduction every step: a step of one call
  for (std::uint64_t i = 0; i < 30; ++i) metrics.push_back({7, (i + 1) * 3000000});
  Workload w;
  w.communicators = {profiled("0x1", 92, gradients()), profiled("0x2", 30, metrics)};
  const Communicator* busiest = busiest_with_cadence(w, /*timed=*/true);
  ASSERT_NE(busiest, nullptr);
  EXPECT_EQ(busiest->id, "0x1");
  EXPECT_EQ(busiest->cadence->calls_per_step, 3u);
  EXPECT_FALSE(why_no_step(w, true));
}

// Where the gradients show no step (their sizes change every step), a group of a few calls
// does not stand for the job: no step, and the reason is the gradients'.
TEST(Workload, AFewCallsOfAnotherGroupDoNotStandForTheJob) {
  std::vector<TimedCall> changing, metrics;
  for (std::uint32_t i = 0; i < 200; ++i) changing.push_back({1000 + i, i * 1000000ull});
  for (std::uint64_t i = 0; i < 12; ++i) metrics.push_back({7, (i + 1) * 3000000});
  Workload w;
  w.communicators = {profiled("0x1", 200, changing), profiled("0x2", 12, metrics)};
  ASSERT_TRUE(w.communicators[1].cadence);
  EXPECT_EQ(busiest_with_cadence(w, true), nullptr);
  EXPECT_FALSE(steps_from_cadence(w));
  const auto why = why_no_step(w, true);
  ASSERT_TRUE(why);
  EXPECT_NE(why->reason.find("communicator 0x1 (200 calls a rank): its last 200 calls repeat no sequence"), std::string::npos)
      << why->reason;
  EXPECT_NE(why->reason.find("the steps of 0x2 (12 calls a rank) are too few calls"), std::string::npos) << why->reason;
  EXPECT_NE(why->fix.find("--steps N"), std::string::npos) << why->fix;
  // The reason travels in the profiler's file, and a merge keeps it.
  const Workload back = workload_from_json(nlohmann::json::parse(to_json(w).dump()));
  EXPECT_EQ(back, w);
  EXPECT_EQ(merge({w}).communicators[0].no_step, w.communicators[0].no_step);
  nlohmann::json both = to_json(w);
  both["communicators"][1]["no_step"] = {{"reason", "x"}, {"fix", "y"}};
  EXPECT_THROW(workload_from_json(both), UsageError);  // a cadence and no step at once
}

TEST(Workload, MergeRefusesRanksThatDisagree) {
  WorkloadBuilder b;
  b.add_call("0xabc", 2, 1, 0, allreduce(8));
  b.add_call("0xabc", 2, 1, 0, allreduce(8));
  b.add_call("0xabc", 2, 1, 1, allreduce(8));
  EXPECT_THROW(b.finish("nccl-log", {}), UsageError);
}

TEST(Workload, MergeRefusesARankTwice) {
  WorkloadBuilder a;
  a.add_call("0xabc", 2, 1, 0, allreduce(8));
  const Workload w = a.finish("nccl-log", {});
  EXPECT_THROW(merge({w, w}), UsageError);
}

TEST(Workload, ReadingNamesTheBadField) {
  nlohmann::json j = to_json(Workload{"nccl-log", {}, std::nullopt, {Communicator{"0x1", 2, 0, {0}, {CallStats{allreduce(8), 1, {}, {}, {}}}}}});
  j["communicators"][0]["calls"][0]["bytes"] = -5;
  try {
    workload_from_json(j);
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("communicators[0].calls[0].bytes"), std::string::npos) << e.what();
  }
  j["communicators"][0]["calls"][0]["bytes"] = 32;
  j["communicators"][0]["calls"][0]["collective"] = "allfrobnicate";
  EXPECT_THROW(workload_from_json(j), UsageError);
  j["schema"] = "cctune.workload/9";
  EXPECT_THROW(workload_from_json(j), UsageError);
}

TEST(Workload, DistinctShapesAreBounded) {
  WorkloadBuilder b;
  for (std::uint64_t i = 1; i <= max_workload_shapes; ++i) b.add_call("0x1", 2, 1, 0, allreduce(i));
  EXPECT_THROW(b.add_call("0x1", 2, 1, 0, allreduce(max_workload_shapes + 1)), UsageError);
}

}  // namespace
}  // namespace cctune::workload
