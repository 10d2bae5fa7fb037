// Cluster merge: grouping by fingerprint, warnings naming node and item, and the gather
// over the RankComm seam (ranks as threads).
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>

#include "support/thread_comm.hpp"
#include "core/error.hpp"
#include "test_paths.hpp"
#include "topology/cluster.hpp"
#include "topology/fixtures.hpp"
#include "topology/topology_json.hpp"

namespace cctune::topo {
namespace {

using test::fixture;

NodeTopology dgx(const std::string& host) {
  NodeTopology n = load_node_fixture(fixture("dgx-h100-like.xml"), fixture("dgx-h100-like.facts.json"));
  n.hostname = host;
  return n;
}

bool has_warning(const Topology& t, const std::string& node, const std::string& item, const std::string& text) {
  for (const auto& w : t.warnings)
    if (w.node == node && w.item == item && w.message.find(text) != std::string::npos) return true;
  return false;
}

TEST(TopologyCluster, IdenticalNodesFormOneGroupWithoutWarnings) {
  NodeTopology b = dgx("node-b");
  b.gpus[0].uuid = "GPU-other";  // serial-like facts do not make nodes different
  b.nics[0].ports[0].gids.clear();
  Topology t = merge_nodes({dgx("node-a"), b});
  ASSERT_EQ(t.groups.size(), 1u);
  EXPECT_EQ(t.groups[0].hosts, (std::vector<std::string>{"node-a", "node-b"}));
  EXPECT_TRUE(t.warnings.empty());
}

TEST(TopologyCluster, PortDownIsAWarningNamingNodeAndPort) {
  for (bool down_on_first : {false, true}) {
    NodeTopology a = dgx("node-a"), b = dgx("node-b");
    (down_on_first ? a : b).nics[3].ports[0].state = "DOWN";
    Topology t = merge_nodes({a, b});
    const std::string bad = down_on_first ? "node-a" : "node-b";
    EXPECT_EQ(t.groups.size(), 2u);
    ASSERT_EQ(t.warnings.size(), 1u);
    EXPECT_TRUE(has_warning(t, bad, "mlx5_3 port 1", "DOWN on " + bad)) << t.warnings[0].message;
  }
}

TEST(TopologyCluster, MissingGpuSlowerPortAndVersionsAreFlagged) {
  NodeTopology odd = dgx("node-c");
  odd.gpus.pop_back();
  odd.nics[2].ports[0].rate_Gbps = 200;
  odd.software.driver = "560.35.03";
  odd.software.nccl = "2.21.5";
  Topology t = merge_nodes({dgx("node-a"), dgx("node-b"), odd});
  ASSERT_EQ(t.groups.size(), 2u);
  EXPECT_EQ(t.groups[0].hosts.size(), 2u);
  EXPECT_TRUE(has_warning(t, "node-c", "GPU 7", "missing on node-c"));
  EXPECT_TRUE(has_warning(t, "node-c", "mlx5_2 port 1", "slower"));
  EXPECT_TRUE(has_warning(t, "node-c", "driver", "560.35.03"));
  EXPECT_TRUE(has_warning(t, "node-c", "NCCL", "2.21.5"));
  EXPECT_EQ(t.warnings.size(), 4u);
}

// Three one-box hosts (issue 44) whose NICs are veths: node2's eth0 shaped to a tenth of the
// others'. Before, interfaces were left out of the fingerprint, so the slow host went unnamed.
TEST(TopologyCluster, ASlowerIpLinkIsFlagged) {
  const auto host = [](const std::string& name, double eth0_Gbps) {
    NodeTopology n = dgx(name);
    n.nics.clear();
    n.net_interfaces.clear();
    for (const auto& [ifname, rate] : std::vector<std::pair<std::string, double>>{{"eth0", eth0_Gbps}, {"eth1", 0.4}}) {
      NetInterface i;
      i.name = ifname, i.operstate = "up", i.speed_Gbps = 10, i.shaped_Gbps = rate, i.is_virtual = true;
      n.net_interfaces.push_back(i);
    }
    return n;
  };
  Topology t = merge_nodes({host("node0", 0.4), host("node1", 0.4), host("node2", 0.04)});
  ASSERT_EQ(t.groups.size(), 2u);
  EXPECT_EQ(t.groups[1].hosts, (std::vector<std::string>{"node2"}));
  EXPECT_TRUE(has_warning(t, "node2", "eth0", "IP link eth0 is slower: 0.04 Gb/s on node2, 0.4 Gb/s on node0"));
  EXPECT_EQ(t.warnings.size(), 1u);
}

// A node with physical NICs: a docker0 or a container's veth beside them changes nothing.
TEST(TopologyCluster, VirtualInterfacesBesidePhysicalOnesAreNoDifference) {
  NodeTopology b = dgx("node-b");
  NetInterface eno;
  eno.name = "eno1", eno.operstate = "up", eno.speed_Gbps = 25;
  NodeTopology a = dgx("node-a");
  a.net_interfaces.push_back(eno);
  b.net_interfaces.push_back(eno);
  NetInterface docker;
  docker.name = "docker0", docker.operstate = "up", docker.is_virtual = true;
  b.net_interfaces.push_back(docker);
  Topology t = merge_nodes({a, b});
  EXPECT_EQ(t.groups.size(), 1u);
  EXPECT_TRUE(t.warnings.empty());
}

TEST(TopologyCluster, GatherProbesOncePerHostAndMergesOnRankZero) {
  // Ranks 0,1 on host-a; ranks 2,3 on host-b where mlx5_0 is down.
  std::atomic<int> probes{0};
  std::mutex m;
  std::vector<std::optional<Topology>> results(4);
  testing::run_ranks(4, [&](RankComm& comm) {
    std::string host = comm.rank() < 2 ? "host-a" : "host-b";
    auto t = gather_cluster_topology(comm, {"host-a", "host-a", "host-b", "host-b"}, [&] {
      ++probes;
      NodeTopology n = dgx("ignored");
      if (host == "host-b") n.nics[0].ports[0].state = "DOWN";
      return n;
    });
    std::lock_guard lock(m);
    results[comm.rank()] = t;
  });
  EXPECT_EQ(probes.load(), 2);
  ASSERT_TRUE(results[0].has_value());
  for (int r = 1; r < 4; ++r) EXPECT_FALSE(results[r].has_value());
  const Topology& t = *results[0];
  ASSERT_EQ(t.nodes.size(), 2u);
  EXPECT_EQ(t.nodes[1].hostname, "host-b");
  EXPECT_TRUE(has_warning(t, "host-b", "mlx5_0 port 1", "DOWN on host-b"));
}

TEST(TopologyCluster, ProbeFailureOnOneHostIsAnErrorOnEveryRank) {
  std::atomic<int> errors{0};
  testing::run_ranks(2, [&](RankComm& comm) {
    try {
      gather_cluster_topology(comm, {"host-0", "host-1"}, [&]() -> NodeTopology {
        if (comm.rank() == 1) throw EnvironmentError("hwloc broke");
        return dgx("x");
      });
    } catch (const EnvironmentError& e) {
      EXPECT_NE(std::string(e.what()).find("host-1"), std::string::npos);
      ++errors;
    }
  });
  EXPECT_EQ(errors.load(), 2);
}

}  // namespace
}  // namespace cctune::topo
