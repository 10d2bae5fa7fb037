#include <gtest/gtest.h>

#include "net/probe.hpp"
#include "core/error.hpp"
#include "net/probe_rounds.hpp"
#include "net/probe_result.hpp"

namespace cctune::net {
namespace {

ProbePair pair(int a, int b, double GBps, double rate_Gbps) {
  ProbePair p;
  p.initiator = a;
  p.responder = b;
  p.port_rate_Gbps = rate_Gbps;
  p.bandwidth = {BandwidthStats{1 << 20, 100, 0.01, GBps, GBps}};
  p.latency = LatencyStats{};
  p.latency->typical_us = 2.0;
  return p;
}

TEST(ProbeSummary, NamesSlowestAndPairsBelowPortRate) {
  ProbeOptions o;
  std::vector<ProbePair> pairs = {pair(0, 1, 24.0, 200), pair(2, 3, 10.0, 200), pair(0, 2, 23.0, 200), pair(1, 3, 24.5, 200)};
  ProbePair failed = pair(1, 2, 0, 200);
  failed.bandwidth.clear();
  failed.error = "boom";
  pairs.push_back(failed);
  const nlohmann::json s = detail::summarize_pairs(pairs, o);
  EXPECT_EQ(s["pairs_measured"], 4);
  EXPECT_EQ(s["pairs_failed"], 1);
  EXPECT_EQ(s["slowest"][0]["initiator"], 2);
  EXPECT_EQ(s["slowest"][0]["responder"], 3);
  EXPECT_DOUBLE_EQ(s["median_avg_GBps"].get<double>(), 23.5);
  // 0.8 x 200 Gb/s = 160 Gb/s = 20 GB/s: only 2->3 (10 GB/s) is below.
  ASSERT_EQ(s["below_port_rate"].size(), 1u);
  EXPECT_EQ(s["below_port_rate"][0]["initiator"], 2);
  EXPECT_NEAR(s["below_port_rate"][0]["fraction_of_port_rate"].get<double>(), 0.4, 1e-12);
  ASSERT_EQ(s["below_median"].size(), 1u);
}

TEST(ProbeSummary, UnknownPortRatesSaySo) {
  ProbeOptions o;
  const nlohmann::json s = detail::summarize_pairs({pair(0, 1, 1.0, 0)}, o);
  EXPECT_TRUE(s["below_port_rate"].empty());
  EXPECT_NE(s["notes"].dump().find("port rates unknown"), std::string::npos);
}

TEST(ProbeSummary, NoMeasuredPairWritesOnlyTheCounts) {
  const nlohmann::json s = detail::summarize_pairs({}, ProbeOptions{});
  EXPECT_EQ(s.size(), 4u) << s.dump();  // pairs_measured, pairs_failed, headline_size_bytes, notes
  EXPECT_FALSE(s.contains("median_avg_GBps"));
}

TEST(ProbeSummary, TextNamesGpuBuffersAndTheLatencyMethod) {
  ProbeResult net;
  net.transport = "ib";
  net.transport_reason = "--probe ib";
  net.nranks = 3;
  net.rounds = 3;
  net.latency_bytes = 2;
  net.gpu_buffers = true;
  net.endpoints = {{0, "a", "gpu:0:dmabuf"}, {1, "a", "gpu:1:dmabuf"}, {2, "b", "gpu:0:dmabuf"}};
  const auto text = format_network_probe(net);
  EXPECT_NE(text.find("# buffers: gpu:0:dmabuf (ranks 0, 2), gpu:1:dmabuf (rank 1)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("2-byte RDMA write-with-immediate ping-pong"), std::string::npos) << text;
}

TEST(ProbeSummary, TextOfASectionThatIsNotAProbesNamesTheField) {
  try {
    format_network_probe(nlohmann::json{{"schema", "cctune.net/1"}, {"transport", 7}});
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_EQ(e.what_only(), "net.transport: expected a string, got an integer");
  }
}

}  // namespace
}  // namespace cctune::net
