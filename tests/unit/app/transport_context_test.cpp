// What `cctune sweep` tells the space planner about the job's transports (issue 35, item 2):
// read from the topology attached to the results and from the caller's environment.
#include <gtest/gtest.h>

#include "app/sweep/transport_context.hpp"
#include "core/error.hpp"
#include "support/thrown.hpp"
#include "topology/topology_section.hpp"

namespace cctune::app {
namespace {

topo::NetInterface interface(const std::string& name, const std::string& state, double speed_Gbps, bool is_virtual = false) {
  topo::NetInterface i;
  i.name = name;
  i.operstate = state;
  i.speed_Gbps = speed_Gbps;
  i.is_virtual = is_virtual;
  return i;
}

Results with_node(topo::NodeTopology node) {
  topo::Topology t;
  t.nodes.push_back(std::move(node));
  Results r;
  r.topology = topo::topology_section(std::move(t));
  return r;
}

topo::Gpu gpu_with_links(int active_links) {
  topo::Gpu g;
  for (int l = 0; l < active_links; ++l) g.nvlinks.push_back({l, true, 4, 25.0, "0000:1b:00.0", "gpu"});
  return g;
}

TEST(TransportContext, InterfacesAreThePhysicalOnesThatAreUpFastestFirst) {
  topo::NodeTopology node;
  node.net_interfaces = {interface("eno1", "up", 25),    interface("ens1f0", "up", 100), interface("docker0", "up", 0, true),
                         interface("ens1f1", "up", 100), interface("ens2", "down", 100), interface("we ird", "up", 100)};
  const Results r = with_node(node);
  std::vector<std::string> names;
  for (const IpInterface& i : ip_interfaces_of(r)) names.push_back(i.name);
  EXPECT_EQ(names, (std::vector<std::string>{"ens1f0", "ens1f1", "eno1"}));  // no virtual, down or unlistable one
  tuner::SpaceContext ctx;
  apply_transport_facts(transport_facts(r, {}), ctx);
  EXPECT_EQ(ctx.ip_interfaces, names);
  EXPECT_EQ(ctx.fastest_interfaces, (std::vector<std::string>{"ens1f0", "ens1f1"}));
  EXPECT_FALSE(ctx.caller_forces_socket);
  EXPECT_FALSE(ctx.caller_disables_nvls);
}

// A host of the one-box cluster (issue 44): its NICs are veths shaped by tc (eth0 25 Gb/s, eth1
// 5 Gb/s, both reporting the veth's 10 Gb/s): they are its interfaces, ranked by what they carry,
// so the space's socket-ifname-fastest group names eth0 alone.
TEST(TransportContext, AHostWhoseNicsAreAllVirtualUsesThemAtTheirShapedRates) {
  topo::NodeTopology node;
  node.net_interfaces = {interface("lo", "unknown", 0, true), interface("eth1", "up", 10, true), interface("eth0", "up", 10, true)};
  node.net_interfaces[1].shaped_Gbps = 5;
  node.net_interfaces[2].shaped_Gbps = 25;  // above the veth's nominal 10, which limits nothing
  const Results r = with_node(node);
  tuner::SpaceContext ctx;
  apply_transport_facts(transport_facts(r, {}), ctx);
  EXPECT_EQ(ctx.ip_interfaces, (std::vector<std::string>{"eth0", "eth1"}));
  EXPECT_EQ(ctx.fastest_interfaces, (std::vector<std::string>{"eth0"}));
}

TEST(TransportContext, GpusWithoutNvlinkMakeAPcieBox) {
  topo::NodeTopology pcie;
  pcie.gpus = {gpu_with_links(0), gpu_with_links(0)};
  topo::NodeTopology nvlink;
  nvlink.gpus = {gpu_with_links(18), gpu_with_links(18)};
  tuner::SpaceContext ctx;
  apply_transport_facts(transport_facts(with_node(pcie), {}), ctx);
  EXPECT_TRUE(ctx.gpus_without_nvlink);
  apply_transport_facts(transport_facts(with_node(nvlink), {}), ctx);
  EXPECT_FALSE(ctx.gpus_without_nvlink);
  // A topology read from a file: its writer's derived block decides.
  nvlink.derived = topo::NodeDerived{{{0, {}, 0.0, 63.0}}, {}};
  apply_transport_facts(transport_facts(with_node(nvlink), {}), ctx);
  EXPECT_TRUE(ctx.gpus_without_nvlink);
}

TEST(TransportContext, TheCallersEnvironmentCanForceSockets) {
  const Results none;  // no topology: nothing known, nothing assumed
  tuner::SpaceContext ctx;
  apply_transport_facts(transport_facts(none, {{"NCCL_NET", "socket"}}), ctx);  // NCCL matches the name without case
  EXPECT_TRUE(ctx.caller_forces_socket);
  EXPECT_TRUE(ctx.ip_interfaces.empty());
  EXPECT_FALSE(ctx.gpus_without_nvlink);
  apply_transport_facts(transport_facts(none, {{"NCCL_IB_DISABLE", "1"}, {"NCCL_NVLS_ENABLE", "0"}}), ctx);
  EXPECT_TRUE(ctx.caller_forces_socket);
  EXPECT_TRUE(ctx.caller_disables_nvls);
  apply_transport_facts(transport_facts(none, {{"NCCL_NET", "IB"}, {"NCCL_IB_DISABLE", "0"}}), ctx);
  EXPECT_FALSE(ctx.caller_forces_socket);
}

// Rank 0 hands the facts to the others through TransportFacts' one codec (broadcast_as).
TEST(TransportContext, FactsTravelThroughTheirCodec) {
  TransportFacts f;
  f.nearest_nics = {"mlx5_0", "mlx5_1"};
  f.ip_interfaces = {"ens1f0", "eno1"};
  f.fastest_interfaces = {"ens1f0"};
  f.gpus_without_nvlink = true;
  f.caller_forces_socket = true;
  const nlohmann::json j = f;
  EXPECT_EQ(j.get<TransportFacts>(), f);
  EXPECT_EQ(nlohmann::json::parse(j.dump()).get<TransportFacts>(), f);

  const auto error_of = [](const nlohmann::json& bad) { return testing::thrown_message<UsageError>([&] { bad.get<TransportFacts>(); }); };
  nlohmann::json bad = j;
  bad["ip_interfaces"][1] = 3;
  EXPECT_EQ(error_of(bad), "transport facts.ip_interfaces[1]: expected a string, got an integer");
  bad = j;
  bad.erase("caller_disables_nvls");
  EXPECT_EQ(error_of(bad), "transport facts.caller_disables_nvls is missing");
}

}  // namespace
}  // namespace cctune::app
