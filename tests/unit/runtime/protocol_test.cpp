#include "runtime/protocol.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace cctune::runtime {
namespace {

TEST(Protocol, EveryMessageRoundTripsAsOneLine) {
  const Message msgs[] = {hello_message(3, 3, "0000:18:00.0", "2.28.3", "runtime 13.0, driver 13.0"),
                          uid_message(std::string(256, 'a')),
                          ready_message(),
                          progress_message(17),
                          point_message(17, {{"busbw_GBps", 1.5}}),
                          done_message(),
                          error_message("init failed\nsecond line", ErrorKind::Failure, "fix it")};
  for (const auto& m : msgs) {
    const std::string line = encode(m);
    EXPECT_EQ(line.find('\n'), std::string::npos) << line;
    const Message back = decode(line);
    EXPECT_EQ(back.type, m.type);
    EXPECT_EQ(back.body, m.body);
  }
  EXPECT_EQ(decode(encode(progress_message(17))).body["point"], 17);
  EXPECT_EQ(decode(encode(hello_message(3, 2, "b", "2.28.3", "c"))).body["device"], 2);
}

// Found by the worker-message fuzzer: an integer field written as a float beyond int
// (get<int>() on 8.9e89 is undefined behaviour). Refused, never converted.
TEST(Protocol, FloatsBeyondIntAreRefusedNotConverted) {
  const auto spec = nlohmann::json::parse(R"({"group":"g","nranks":1,"rank":1e90,"device":0,"plan":{}})");
  EXPECT_THROW(worker_spec_from_json(spec), UsageError);
  EXPECT_THROW(decode(R"({"type":"progress","point":5.5e42})"), RuntimeFailure);
  EXPECT_NO_THROW(decode(R"({"type":"progress","point":3})"));
}

TEST(Protocol, RejectsGarbage) {
  EXPECT_THROW(decode("NCCL INFO Bootstrap"), RuntimeFailure);
  EXPECT_THROW(decode("{\"no\":\"type\"}"), RuntimeFailure);
  EXPECT_THROW(decode("{\"type\":\"dance\"}"), RuntimeFailure);
  EXPECT_THROW(decode("[1,2]"), RuntimeFailure);
}

TEST(Protocol, WorkerSpecRoundTrip) {
  WorkerSpec s;
  s.group = "pcie";
  s.nranks = 8;
  s.rank = 3;
  s.device = 3;
  s.nnodes = 2;
  s.host = "h";
  s.graph = true;
  s.plan = {{"x", 1}};
  const WorkerSpec b = worker_spec_from_json(to_json(s));
  EXPECT_EQ(to_json(b), to_json(s));
  // Nothing test-only travels in the production protocol (faults are the test build's seam).
  EXPECT_FALSE(to_json(s).contains("test_fault"));
}

TEST(Protocol, WorkerSpecValidation) {
  WorkerSpec s;
  s.nranks = 2;
  s.rank = 2;  // out of range
  EXPECT_THROW(worker_spec_from_json(to_json(s)), UsageError);
  EXPECT_THROW(worker_spec_from_json({{"group", "g"}}), UsageError);
}

}  // namespace
}  // namespace cctune::runtime
