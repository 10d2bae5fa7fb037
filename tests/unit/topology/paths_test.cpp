// Distance classes, nearest NICs and limits on the DGX-H100-like fixture (hwloc XML +
// device facts), and the JSON round trip.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "test_paths.hpp"
#include "topology/fixtures.hpp"
#include "topology/paths.hpp"
#include "topology/topology_json.hpp"

namespace cctune::topo {
namespace {

using test::fixture;

NodeTopology dgx() { return load_node_fixture(fixture("dgx-h100-like.xml"), fixture("dgx-h100-like.facts.json")); }

const Nic& nic(const NodeTopology& n, const std::string& name) {
  for (const auto& x : n.nics)
    if (x.name == name) return x;
  throw std::runtime_error("no NIC " + name);
}

TEST(TopologyPaths, DgxFixtureLoadsCpusNumaAndPlacements) {
  NodeTopology n = dgx();
  EXPECT_EQ(n.cpu.packages, 2);
  EXPECT_EQ(n.cpu.pus, 16);
  ASSERT_EQ(n.numa_nodes.size(), 2u);
  EXPECT_EQ(n.numa_nodes[1].cpuset, "8-15");
  ASSERT_EQ(n.gpus.size(), 8u);
  ASSERT_EQ(n.nics.size(), 9u);
  // NUMA node and CPU affinity come from hwloc when the facts do not say.
  EXPECT_EQ(n.gpus[0].numa_node, 0);
  EXPECT_EQ(n.gpus[5].numa_node, 1);
  EXPECT_EQ(n.gpus[5].cpu_affinity, "8-15");
  // NIC bus ids come from hwloc's OpenFabrics OS devices.
  EXPECT_EQ(nic(n, "mlx5_0").pci_bus_id, "0000:16:00.0");
  EXPECT_EQ(n.gpus[0].placement.switches.size(), 2u);
  EXPECT_EQ(n.net_interfaces[0].pci_bus_id, "0000:16:00.0");
}

TEST(TopologyPaths, DgxClassesMatchNvidiaSmiMeanings) {
  NodeTopology n = dgx();
  const Gpu& g0 = n.gpus[0];
  EXPECT_EQ(gpu_nic_path(g0, nic(n, "mlx5_0")).label(), "PIX");   // same second-level switch
  EXPECT_EQ(gpu_nic_path(g0, nic(n, "mlx5_1")).label(), "PXB");   // across two switch levels
  EXPECT_EQ(gpu_nic_path(g0, nic(n, "mlx5_8")).label(), "PHB");   // other root port, same host bridge
  EXPECT_EQ(gpu_nic_path(g0, nic(n, "mlx5_2")).label(), "NODE");  // other host bridge, same NUMA node
  EXPECT_EQ(gpu_nic_path(g0, nic(n, "mlx5_4")).label(), "SYS");   // other socket
  EXPECT_EQ(gpu_nic_path(n.gpus[7], nic(n, "mlx5_7")).label(), "PIX");
  EXPECT_EQ(gpu_gpu_path(g0, n.gpus[0]).label(), "X");
  EXPECT_EQ(gpu_gpu_path(g0, n.gpus[6]).label(), "NV18");
  // Without NVLink the same pair is a PCIe path across sockets.
  EXPECT_EQ(to_string(pci_path_class(g0.placement, n.gpus[6].placement)), "SYS");
  EXPECT_EQ(to_string(pci_path_class(g0.placement, n.gpus[1].placement)), "PXB");

  PathMatrix m = path_matrix(n);
  ASSERT_EQ(m.names.size(), 17u);
  EXPECT_EQ(m.names[8], "NIC0");
  EXPECT_EQ(m.paths[0][8].label(), "PIX");
  EXPECT_EQ(m.paths[8][0].label(), "PIX");
  EXPECT_EQ(m.paths[8][9].label(), "PXB");  // NIC0-NIC1
  EXPECT_EQ(m.paths[8][8].label(), "X");
}

TEST(TopologyPaths, NearestNicsPreferActivePorts) {
  NodeTopology n = dgx();
  EXPECT_EQ(nearest_nics(n, n.gpus[0]), std::vector<std::string>{"mlx5_0"});
  EXPECT_EQ(nearest_nics(n, n.gpus[5]), std::vector<std::string>{"mlx5_5"});
  // mlx5_0 down: GPU0's nearest active NIC is the other one under the same switch.
  n.nics[0].ports[0].state = "DOWN";
  EXPECT_EQ(nearest_nics(n, n.gpus[0]), std::vector<std::string>{"mlx5_1"});
}

TEST(TopologyPaths, Limits) {
  NodeTopology n = dgx();
  EXPECT_NEAR(gpu_nvlink_GBps(n.gpus[0]), 478.125, 1e-9);
  EXPECT_NEAR(gpu_gpu_limit_GBps(n.gpus[0], n.gpus[1]), 478.125, 1e-9);
  EXPECT_NEAR(gpu_pcie_GBps(n.gpus[0]), 63.015, 1e-3);           // gen5 x16
  EXPECT_NEAR(nic_GBps(nic(n, "mlx5_0")), 50.0, 1e-9);            // 400 Gb/s NDR
  EXPECT_NEAR(gpu_nic_limit_GBps(n.gpus[0], nic(n, "mlx5_0")), 50.0, 1e-9);
  EXPECT_NEAR(pcie_lane_GBps(4), 1.969, 1e-3);
  EXPECT_EQ(pcie_lane_GBps(0), 0.0);
}

TEST(TopologyPaths, FindGpuByIndexOrBusId) {
  NodeTopology n = dgx();
  ASSERT_NE(find_gpu(n, "3"), nullptr);
  EXPECT_EQ(find_gpu(n, "3")->index, 3);
  ASSERT_NE(find_gpu(n, "00000000:25:00.0"), nullptr);
  EXPECT_EQ(find_gpu(n, "00000000:25:00.0")->index, 1);
  EXPECT_EQ(find_gpu(n, "9"), nullptr);
  EXPECT_EQ(normalize_pci_bus_id("00000000:1B:00.0"), "0000:1b:00.0");
  EXPECT_EQ(normalize_pci_bus_id("1b:00.0"), "0000:1b:00.0");
}

TEST(TopologyJson, RoundTripKeepsEverything) {
  Topology t;
  t.nodes.push_back(dgx());
  t.groups.push_back({"abc", {"dgx-h100-like"}});
  t.warnings.push_back({"dgx-h100-like", "mlx5_0 port 1", "example"});
  nlohmann::json j = to_json(t);
  EXPECT_EQ(j["schema"], "cctune.topology/1");
  EXPECT_EQ(j["nodes"][0]["derived"]["matrix"]["classes"][0][8], "PIX");
  EXPECT_EQ(j["nodes"][0]["derived"]["gpus"][0]["nearest_nics"], nlohmann::json::array({"mlx5_0"}));
  Topology back = topology_from_json(j);
  EXPECT_EQ(to_json(back), j);
}

TEST(TopologyJson, BadFilesGiveOneLineUsageErrorNamingTheFile) {
  for (const char* name : {"bad/truncated-topology.json", "bad/invalid-topology.json", "does-not-exist.json"}) {
    const std::string path = fixture(name);
    try {
      load_topology_file(path);
      ADD_FAILURE() << "no error for " << path;
    } catch (const UsageError& e) {
      EXPECT_NE(e.describe().find(path), std::string::npos) << e.describe();
      EXPECT_EQ(e.describe().find('\n'), std::string::npos) << e.describe();
    }
  }
}

}  // namespace
}  // namespace cctune::topo
