// The workload model: JSON round trip and refusals, merging ranks, the shape bound.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "workload/workload_json.hpp"

namespace cctune::workload {
namespace {

CallShape allreduce(std::uint64_t count) {
  CallShape s;
  s.dtype = DType::Float32;
  s.op = ReduceOp::Sum;
  s.count = count;
  s.bytes = nbytes_of(CallKind::Collective, Collective::AllReduce, DType::Float32, count, 4);
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
