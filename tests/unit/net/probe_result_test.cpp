// The net section's typed reader and writer: what the probe writes reads back unchanged;
// a missing or mistyped field is one line naming it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "net/probe_result.hpp"

namespace cctune::net {
namespace {

using nlohmann::json;

ProbePair measured_pair() {
  ProbePair p;
  p.round = 0;
  p.initiator = 0;
  p.responder = 1;
  p.initiator_host = "node-a";
  p.responder_host = "node-b";
  p.transport = "tcp";
  p.initiator_endpoint = "eth0 10.0.0.1";
  p.responder_endpoint = "eth0 10.0.0.2";
  p.bandwidth = {BandwidthStats{1 << 20, 250, 0.05, 5.0, 5.5}, BandwidthStats{4 << 20, 250, 0.2, 5.25, 5.75}};
  p.latency = LatencyStats{2, 200, 10, 12, 12.5, 20, 25, 30, 1.5};
  return p;
}

// A net section as cctune probe writes it, from the writer's own types.
json section(const std::vector<ProbePair>& pairs) {
  ProbeSummary s;
  s.pairs_measured = pairs.size();
  s.headline_size_bytes = 4 << 20;
  s.median_avg_GBps = 5.25;
  return {{"schema", "cctune.net/1"}, {"transport", "tcp"}, {"transport_reason", "--probe tcp"}, {"nranks", 2},
          {"options", {{"latency_bytes", 2}, {"gpu_buffers", false}}}, {"schedule", {{"rounds", 1}}},
          {"endpoints", {{{"rank", 0}, {"host", "node-a"}, {"buffer", "host"}}, {{"rank", 1}, {"host", "node-b"}, {"buffer", "host"}}}},
          {"pairs", pairs}, {"summary", s}};
}

std::string error_of(const json& net) {
  try {
    parse_probe_result(net, "results.json net");
  } catch (const UsageError& e) {
    EXPECT_EQ(e.what_only().find('\n'), std::string::npos);
    EXPECT_NE(e.fix().find("cctune probe"), std::string::npos);
    return e.what_only();
  }
  return "no error";
}

TEST(ProbeResult, ReadsWhatTheWriterWrites) {
  const json net = section({measured_pair()});
  const ProbeResult r = parse_probe_result(net);
  EXPECT_EQ(r.transport, "tcp");
  EXPECT_EQ(r.nranks, 2);
  EXPECT_EQ(r.rounds, 1u);
  ASSERT_EQ(r.pairs.size(), 1u);
  const ProbePair& p = r.pairs[0];
  EXPECT_EQ(p.initiator, 0);
  EXPECT_EQ(p.responder, 1);
  EXPECT_FALSE(p.failed());
  ASSERT_NE(p.headline(), nullptr);
  EXPECT_DOUBLE_EQ(p.headline()->avg_GBps, 5.25);
  EXPECT_DOUBLE_EQ(p.latency->p999_us, 25);
  EXPECT_EQ(r.endpoints[1].host, "node-b");
  EXPECT_DOUBLE_EQ(*r.summary.median_avg_GBps, 5.25);
  // The pair writes back byte for byte.
  EXPECT_EQ(json(p).dump(), net["pairs"][0].dump());
}

TEST(ProbeResult, FailedPairsAndSkippedProbes) {
  ProbePair failed = measured_pair();
  failed.bandwidth.clear();
  failed.latency.reset();
  failed.error = "connect to 10.0.0.2:4000: refused";
  failed.responder_error = "no peer within the timeout";
  const json j = failed;
  EXPECT_FALSE(j.contains("bandwidth"));
  EXPECT_EQ(j["error"], "connect to 10.0.0.2:4000: refused");
  const ProbePair back = parse_probe_pair(j, "net.pairs[0]");
  EXPECT_TRUE(back.failed());
  EXPECT_EQ(back.headline(), nullptr);
  EXPECT_EQ(back.responder_error, "no peer within the timeout");
  const ProbeResult skipped = parse_probe_result(json{{"skipped", true}, {"reason", "--probe none"}});
  EXPECT_TRUE(skipped.skipped);
  EXPECT_EQ(skipped.reason, "--probe none");
}

TEST(ProbeResult, MissingFieldIsOneLineNamingIt) {
  json net = section({measured_pair()});
  net["pairs"][0].erase("initiator");
  EXPECT_EQ(error_of(net), "results.json net.pairs[0].initiator is missing");
  net = section({measured_pair()});
  net.erase("summary");
  EXPECT_EQ(error_of(net), "results.json net.summary is missing");
  net = section({measured_pair()});
  net["pairs"][0]["bandwidth"][1].erase("avg_GBps");
  EXPECT_EQ(error_of(net), "results.json net.pairs[0].bandwidth[1].avg_GBps is missing");
}

TEST(ProbeResult, WrongTypeIsOneLineNamingIt) {
  json net = section({measured_pair()});
  net["pairs"][0]["initiator"] = "0";
  EXPECT_EQ(error_of(net), "results.json net.pairs[0].initiator: expected an integer, got a string");
  net = section({measured_pair()});
  net["pairs"] = json::object();
  EXPECT_EQ(error_of(net), "results.json net.pairs: expected an array, got an object");
  net = section({measured_pair()});
  net["pairs"][0]["error"] = 5;
  EXPECT_EQ(error_of(net), "results.json net.pairs[0].error: expected a string, got an integer");
  EXPECT_EQ(error_of(json::array()), "results.json net: expected an object, got an array");
  net = section({measured_pair()});
  net["schema"] = "cctune.net/9";
  EXPECT_EQ(error_of(net), "results.json net.schema is 'cctune.net/9', expected 'cctune.net/1'");
}

TEST(ProbeResult, RanksBeyondTheJobAreRefused) {
  json net = section({measured_pair()});
  net["pairs"][0]["responder"] = 5000;
  EXPECT_EQ(error_of(net), "results.json net.pairs[0].responder: rank 5000 is not a rank of this 2-rank probe");
  net["pairs"][0]["responder"] = -1;
  EXPECT_EQ(error_of(net), "results.json net.pairs[0].responder: rank -1 is not a rank of this 2-rank probe");
}

}  // namespace
}  // namespace cctune::net
