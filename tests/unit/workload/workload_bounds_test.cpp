// Numbers in the workload model and workload.json (reliability review N10, N11): checked
// products, bounded integer fields, count x type size = bytes, finite non-negative durations,
// ranks and roots inside the communicator, duplicate shapes and ids. Each test fails on 8646a77.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "workload/nccl_names.hpp"
#include "workload/workload_json.hpp"

namespace cctune::workload {
namespace {

using nlohmann::json;

// A valid workload.json of one communicator holding one broadcast; tests break one field.
json one_call() {
  return json::parse(R"({"schema":"cctune.workload/1","format":"nccl-log","sources":["a.log"],"steps":null,
    "communicators":[{"id":"0xabc","nranks":2,"nnodes":1,"ranks":[0,1],"calls":[
      {"kind":"collective","collective":"broadcast","dtype":"float32","root":1,"count":64,"bytes":256,"calls":8,
       "duration_us":{"samples":8,"sum":80.0,"min":9.0,"max":11.0}}]}]})");
}

std::string refusal(const json& j) {
  try {
    workload_from_json(j);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(WorkloadBounds, NbytesOfIsCheckedAndBounded) {
  // AllGather count 2^62 on 4 ranks wrapped to 0 B, 2^62+1 to 16 B on 8646a77.
  EXPECT_FALSE(nbytes_of(CallKind::Collective, Collective::AllGather, DType::Float32, std::uint64_t{1} << 62, 4));
  EXPECT_FALSE(nbytes_of(CallKind::Collective, Collective::AllGather, DType::Float32, (std::uint64_t{1} << 62) + 1, 4));
  EXPECT_FALSE(nbytes_of(CallKind::Collective, Collective::AllReduce, DType::Float64, ~std::uint64_t{0}, 1));
  EXPECT_EQ(nbytes_of(CallKind::Collective, Collective::AllReduce, DType::Uint8, max_call_bytes, 8), max_call_bytes);
  EXPECT_FALSE(nbytes_of(CallKind::Collective, Collective::AllReduce, DType::Uint8, max_call_bytes + 1, 8));
  // The table's count rule, not a private list: every collective that splits over ranks.
  for (Collective c : {Collective::AllGather, Collective::ReduceScatter, Collective::AllToAll, Collective::Gather, Collective::Scatter})
    EXPECT_EQ(nbytes_of(CallKind::Collective, c, DType::Float32, 10, 4), 160u) << to_string(c);
  EXPECT_EQ(nbytes_of(CallKind::Send, Collective::SendRecv, DType::Float32, 10, 4), 40u);
}

TEST(WorkloadBounds, BuilderRefusesWhatTheReaderRefuses) {
  WorkloadBuilder b;
  CallShape wrapped = make_shape({CallKind::Collective, Collective::AllGather}, DType::Float32, std::nullopt, 0, std::uint64_t{1} << 62, 4);
  EXPECT_THROW(b.add_call("0x1", 4, 0, 0, wrapped), UsageError);
  CallShape rooted = make_shape({CallKind::Collective, Collective::Broadcast}, DType::Float32, std::nullopt, 7, 16, 4);
  EXPECT_THROW(b.add_call("0x1", 4, 0, 0, rooted), UsageError);
  EXPECT_THROW(b.add_call("0x1", 4, 0, 5, make_shape({}, DType::Float32, ReduceOp::Sum, 0, 16, 4)), UsageError);
}

// Each mutation of the valid file, and the field its refusal names.
TEST(WorkloadBounds, EveryFieldIsRangeChecked) {
  EXPECT_EQ(refusal(one_call()), "");
  struct Case {
    const char* what;
    void (*mutate)(json&);
    const char* names;
  };
  const Case cases[] = {
      {"nranks 2^32+2 (read as 2)", [](json& j) { j["communicators"][0]["nranks"] = 4294967298ULL; }, "nranks"},
      {"root 2^32-1 (read as -1)", [](json& j) { j["communicators"][0]["calls"][0]["root"] = 4294967295ULL; }, "root"},
      {"root outside the communicator", [](json& j) { j["communicators"][0]["calls"][0]["root"] = 2; }, "root"},
      {"count and bytes disagree", [](json& j) { j["communicators"][0]["calls"][0]["count"] = 67108864; }, "bytes"},
      {"bytes past the bound", [](json& j) { j["communicators"][0]["calls"][0]["count"] = std::uint64_t{1} << 40; }, "count"},
      {"negative duration", [](json& j) { j["communicators"][0]["calls"][0]["duration_us"]["sum"] = -5e9; }, "sum"},
      {"infinite duration (written as null)", [](json& j) { j["communicators"][0]["calls"][0]["duration_us"]["max"] = nullptr; }, "max"},
      {"calls 2^64-1", [](json& j) { j["communicators"][0]["calls"][0]["calls"] = ~std::uint64_t{0}; }, "calls"},
      {"rank 2^32", [](json& j) { j["communicators"][0]["ranks"] = json::array({4294967296ULL}); }, "ranks"},
      {"nnodes above nranks", [](json& j) { j["communicators"][0]["nnodes"] = 3; }, "nnodes"},
      {"id with escapes", [](json& j) { j["communicators"][0]["id"] = "0x1\x1b]0;PWNED\a"; }, "id"},
      {"id of no known form", [](json& j) { j["communicators"][0]["id"] = "world"; }, "id"},
      {"duplicate shape", [](json& j) { j["communicators"][0]["calls"].push_back(j["communicators"][0]["calls"][0]); }, "repeats"},
      {"duplicate communicator", [](json& j) { j["communicators"].push_back(j["communicators"][0]); }, "repeats"},
      {"steps infinite", [](json& j) { j["steps"] = 1e308 * 10; }, "steps"},
      // Review R12: forged step times became 300-digit speedups.
      {"step_ms 1e300",
       [](json& j) {
         j["communicators"][0]["cadence"] = {{"calls_per_step", 1}, {"steps", 8}, {"timed_steps", 7}, {"step_ms", 1e300}};
       },
       "step_ms"},
      {"step_ms 1e-300",
       [](json& j) {
         j["communicators"][0]["cadence"] = {{"calls_per_step", 1}, {"steps", 8}, {"timed_steps", 7}, {"step_ms", 1e-300}};
       },
       "step_ms"},
  };
  for (const Case& c : cases) {
    json j = one_call();
    c.mutate(j);
    const std::string why = refusal(j);
    EXPECT_NE(why.find(c.names), std::string::npos) << c.what << ": " << why;
  }
}

TEST(WorkloadBounds, AStepTimeIsZeroOrAJobsStep) {
  for (double ms : {0.0, 1e-4, 2.5, 8.64e7}) {
    json j = one_call();
    j["communicators"][0]["cadence"] = {{"calls_per_step", 1}, {"steps", 8}, {"timed_steps", 7}, {"step_ms", ms}};
    EXPECT_EQ(refusal(j), "") << ms;
  }
}

TEST(WorkloadBounds, IdsOfEveryImporterAreAccepted) {
  for (const char* id : {"0xabc", "0x1234567890abcdef1234567890abcdef", "pg0", "pg12", "pg" "0123456789abcdef0123456789abcdef01234567",
                         "unmapped:h1:100:100/0x10", "unmapped:h1:100/0x10#2"}) {
    json j = one_call();
    j["communicators"][0]["id"] = id;
    EXPECT_EQ(refusal(j), "") << id;
  }
}

// 200 000 shapes: the cap the importers have, on read too (merge of 10^6 shapes ran unbounded).
TEST(WorkloadBounds, ShapesAreCappedOnRead) {
  json j = one_call();
  json& calls = j["communicators"][0]["calls"];
  const json proto = calls[0];
  calls = json::array();
  for (std::uint64_t k = 1; k <= max_workload_shapes + 1; ++k) {
    json c = proto;
    c["count"] = k;
    c["bytes"] = 4 * k;
    calls.push_back(std::move(c));
  }
  EXPECT_NE(refusal(j).find("200000"), std::string::npos);
}

}  // namespace
}  // namespace cctune::workload
