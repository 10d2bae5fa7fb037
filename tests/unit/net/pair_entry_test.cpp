// The pair entry both transports start from: who initiates, labels, the slower port.
#include <gtest/gtest.h>

#include "net/probe_rounds.hpp"

namespace cctune::net::detail {
namespace {

const nlohmann::json endpoints = nlohmann::json::parse(R"([
  {"rank": 0, "host": "a", "device": "mlx5_0", "port": 1, "port_rate_Gbps": 400.0},
  {"rank": 1, "host": "a", "device": "mlx5_1", "port": 1, "port_rate_Gbps": 200.0},
  {"rank": 2, "host": "b", "device": "mlx5_0", "port": 2, "port_rate_Gbps": 400.0}])");

std::string ib_label(const nlohmann::json& e) {
  return e["device"].get<std::string>() + ":" + std::to_string(e["port"].get<int>());
}

TEST(PairEntry, LowerRankInitiatesWhicheverSideBuildsIt) {
  const auto from_low = pair_entry(endpoints, 3, 0, 2, "ib", ib_label);
  const auto from_high = pair_entry(endpoints, 3, 2, 0, "ib", ib_label);
  EXPECT_EQ(from_low["role"], "initiator");
  EXPECT_EQ(from_high["role"], "responder");
  for (const auto& e : {from_low, from_high}) {
    EXPECT_EQ(e["round"], 3);
    EXPECT_EQ(e["initiator"], 0);
    EXPECT_EQ(e["responder"], 2);
    EXPECT_EQ(e["initiator_host"], "a");
    EXPECT_EQ(e["responder_host"], "b");
    EXPECT_FALSE(e["same_host"].get<bool>());
    EXPECT_EQ(e["transport"], "ib");
    EXPECT_EQ(e["initiator_endpoint"], "mlx5_0:1");
    EXPECT_EQ(e["responder_endpoint"], "mlx5_0:2");
    EXPECT_TRUE(e["error"].is_null());
  }
}

TEST(PairEntry, PortRateIsTheSlowerEnd) {
  const auto e = pair_entry(endpoints, 0, 1, 0, "ib", ib_label);
  EXPECT_TRUE(e["same_host"].get<bool>());
  EXPECT_DOUBLE_EQ(e["port_rate_Gbps"].get<double>(), 200.0);
  EXPECT_EQ(e["responder_endpoint"], "mlx5_1:1");
}

}  // namespace
}  // namespace cctune::net::detail
