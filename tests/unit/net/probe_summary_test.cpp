#include <gtest/gtest.h>

#include "net/probe.hpp"
#include "net/probe_internal.hpp"

namespace cctune::net {
namespace {

nlohmann::json pair(int a, int b, double GBps, double rate_Gbps) {
  return {{"initiator", a}, {"responder", b}, {"error", nullptr}, {"port_rate_Gbps", rate_Gbps},
          {"bandwidth", {{{"size_bytes", 1 << 20}, {"avg_GBps", GBps}, {"avg_Gbps", GBps * 8}}}},
          {"latency", {{"typical_us", 2.0}}}};
}

TEST(ProbeSummary, NamesSlowestAndPairsBelowPortRate) {
  ProbeOptions o;
  nlohmann::json pairs = {pair(0, 1, 24.0, 200), pair(2, 3, 10.0, 200), pair(0, 2, 23.0, 200), pair(1, 3, 24.5, 200)};
  pairs.push_back({{"initiator", 1}, {"responder", 2}, {"error", "boom"}, {"port_rate_Gbps", 200}});
  const auto s = detail::summarize_pairs(pairs, o);
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
  const auto s = detail::summarize_pairs(nlohmann::json::array({pair(0, 1, 1.0, 0)}), o);
  EXPECT_TRUE(s["below_port_rate"].empty());
  EXPECT_NE(s["notes"].dump().find("port rates unknown"), std::string::npos);
}

TEST(ProbeSummary, TextNamesGpuBuffersAndTheLatencyMethod) {
  nlohmann::json net = {
      {"transport", "ib"}, {"transport_reason", "--probe ib"}, {"nranks", 3},
      {"schedule", {{"rounds", 3}}},
      {"options", {{"latency_bytes", 2}, {"gpu_buffers", true}}},
      {"endpoints", {{{"rank", 0}, {"buffer", "gpu:0:dmabuf"}}, {{"rank", 1}, {"buffer", "gpu:1:dmabuf"}},
                     {{"rank", 2}, {"buffer", "gpu:0:dmabuf"}}}},
      {"pairs", nlohmann::json::array()},
      {"summary", {{"pairs_measured", 0}}}};
  const auto text = format_network_probe(net);
  EXPECT_NE(text.find("# buffers: gpu:0:dmabuf (ranks 0, 2), gpu:1:dmabuf (rank 1)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("2-byte RDMA write-with-immediate ping-pong"), std::string::npos) << text;
}

}  // namespace
}  // namespace cctune::net
