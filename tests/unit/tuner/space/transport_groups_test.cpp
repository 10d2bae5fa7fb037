// The default space's transport groups (issue 35, item 2): each runs only where its
// `requires` say the job's traffic takes that transport, and is skipped elsewhere with a
// reason the dry run prints. The shipped files stay within NCCL's own limits.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "core/error.hpp"
#include "tuner/space/plan.hpp"
#include "tuner/space/requirements.hpp"
#include "tuner/space/space.hpp"

namespace cctune::tuner {
namespace {

const std::string kSpaces = std::string(CCTUNE_SOURCE_DIR) + "/configs/spaces";
const char* const kSocketGroups[] = {"sockets-2x2", "sockets-4x4", "sockets-8x8"};
const char* const kRdmaGroups[] = {"ib-hca-nearest", "ib-qps-4", "net-gdr-level-sys"};

const PlannedGroup& group(const SpacePlan& plan, const std::string& name) {
  for (const PlannedGroup& g : plan.groups)
    if (g.name == name) return g;
  throw std::runtime_error("no group " + name);
}

bool runs(const SpacePlan& plan, const std::string& name) {
  return group(plan, name).skip_reason.empty() && !group(plan, name).points.empty();
}

SpaceContext job(int nranks, int nnodes) {
  SpaceContext ctx;
  ctx.nranks = nranks;
  ctx.nnodes = nnodes;
  return ctx;
}

SpacePlan plan_default(const SpaceContext& ctx) { return plan_space(load_space("default", {kSpaces}), ctx); }

// 2 emulated nodes x 2 GPUs on the lent machines: no RDMA devices, so NCCL's socket transport.
TEST(TransportGroups, SocketJobGetsTheSocketGroups) {
  const SpacePlan plan = plan_default(job(4, 2));
  for (const char* name : kSocketGroups) EXPECT_TRUE(runs(plan, name)) << name << ": " << group(plan, name).skip_reason;
  EXPECT_EQ(group(plan, "sockets-4x4").env.at("NCCL_SOCKET_NTHREADS"), "4");
  EXPECT_EQ(group(plan, "sockets-4x4").env.at("NCCL_NSOCKS_PERTHREAD"), "4");
  for (const char* name : kRdmaGroups) EXPECT_EQ(group(plan, name).skip_reason, "needs RDMA NICs near the GPUs; none were found") << name;
  EXPECT_NE(group(plan, "p2p-level-sys").skip_reason.find("lack NVLink"), std::string::npos);  // NVLink unknown: not a PCIe box
}

TEST(TransportGroups, OneNvlinkNodeSkipsThemWithTheReasonPrinted) {
  const SpacePlan plan = plan_default(job(4, 1));
  for (const char* name : kSocketGroups)
    EXPECT_EQ(group(plan, name).skip_reason, "matters only across nodes (NCCL's socket transport); this job has 1 node") << name;
  const std::string text = format_plan(plan);
  EXPECT_NE(text.find("group sockets-4x4: skipped: matters only across nodes (NCCL's socket transport); this job has 1 node\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("group p2p-level-loc: skipped: matters only where GPUs lack NVLink"), std::string::npos) << text;
  EXPECT_NE(text.find("group net-gdr-level-sys: skipped: matters only across nodes"), std::string::npos) << text;
}

TEST(TransportGroups, RdmaJobGetsGdrAndNotSockets) {
  SpaceContext ctx = job(16, 2);
  ctx.nearest_nics = {"mlx5_0", "mlx5_1"};
  const SpacePlan plan = plan_default(ctx);
  for (const char* name : kRdmaGroups) EXPECT_TRUE(runs(plan, name)) << name << ": " << group(plan, name).skip_reason;
  EXPECT_EQ(group(plan, "net-gdr-level-sys").env.at("NCCL_NET_GDR_LEVEL"), "SYS");
  for (const char* name : kSocketGroups)
    EXPECT_NE(group(plan, name).skip_reason.find("the nodes talk over RDMA (mlx5_0,mlx5_1 near the GPUs)"), std::string::npos)
        << name << ": " << group(plan, name).skip_reason;
  // GPUDirect reads are NCCL's default where GPUs have NVLink: the group is for PCIe GPUs only.
  EXPECT_NE(group(plan, "net-gdr-read-1").skip_reason.find("lack NVLink"), std::string::npos);
  ctx.gpus_without_nvlink = true;
  EXPECT_TRUE(runs(plan_default(ctx), "net-gdr-read-1"));
}

// NCCL_NET=Socket or NCCL_IB_DISABLE=1 in the caller's environment: sockets, whatever NICs exist.
TEST(TransportGroups, CallerForcingSocketsSwapsRdmaGroupsForSocketOnes) {
  SpaceContext ctx = job(16, 2);
  ctx.nearest_nics = {"mlx5_0"};
  ctx.caller_forces_socket = true;
  const SpacePlan plan = plan_default(ctx);
  for (const char* name : kSocketGroups) EXPECT_TRUE(runs(plan, name)) << name;
  for (const char* name : kRdmaGroups)
    EXPECT_NE(group(plan, name).skip_reason.find("the caller's environment sends traffic between nodes over sockets"), std::string::npos)
        << name;
}

TEST(TransportGroups, PcieBoxGetsP2pLevelWhereGpusShareANode) {
  SpaceContext ctx = job(4, 1);
  ctx.gpus_without_nvlink = true;
  const SpacePlan plan = plan_default(ctx);
  EXPECT_TRUE(runs(plan, "p2p-level-sys"));
  EXPECT_EQ(group(plan, "p2p-level-loc").env.at("NCCL_P2P_LEVEL"), "LOC");
  SpaceContext one_per_node = job(2, 2);
  one_per_node.gpus_without_nvlink = true;
  EXPECT_EQ(group(plan_default(one_per_node), "p2p-level-sys").skip_reason,
            "matters only between GPUs of one node; this job has 2 rank(s) on 2 nodes");
}

TEST(TransportGroups, InterfaceNamesComeFromTheTopologyWhereThereAreSeveral) {
  SpaceContext ctx = job(4, 2);
  ctx.ip_interfaces = {"ens1f0", "ens1f1", "eno1"};
  ctx.fastest_interfaces = {"ens1f0", "ens1f1"};
  const SpacePlan plan = plan_default(ctx);
  const PlannedGroup& g = group(plan, "socket-ifname-fastest");
  ASSERT_TRUE(g.skip_reason.empty()) << g.skip_reason;
  EXPECT_EQ(g.env.at("NCCL_SOCKET_IFNAME"), "=ens1f0,ens1f1");  // '=': exact names, not prefixes
  ctx.ip_interfaces = {"eno1"};
  ctx.fastest_interfaces = {"eno1"};
  EXPECT_EQ(group(plan_default(ctx), "socket-ifname-fastest").skip_reason,
            "needs two or more physical IP interfaces that are up; the topology shows 1");
  EXPECT_EQ(resolve_placeholder("NCCL_SOCKET_IFNAME", "{fastest_interfaces}", job(4, 2)).why,
            "NCCL_SOCKET_IFNAME is derived from the fastest IP interfaces; the topology shows none that is up");
}

TEST(TransportGroups, RequirementsAndPlaceholdersAreChecked) {
  const std::string base =
      R"({"name": "x", "collectives": ["allreduce"], "sizes": {"min": "8", "max": "1M"}, "algorithms": ["auto"], "protocols": ["auto"], "groups": [)";
  const SearchSpace ok = parse_space(
      base +
          R"({"name": "s", "env": {"NCCL_SOCKET_IFNAME": "{fastest_interfaces}"}, "requires": ["socket", "several_interfaces", "pcie"]}]})",
      "s.json");
  EXPECT_EQ(ok.groups[0].requires_,
            (std::vector<GroupRequirement>{GroupRequirement::Socket, GroupRequirement::SeveralInterfaces, GroupRequirement::Pcie}));
  for (GroupRequirement r : ok.groups[0].requires_) EXPECT_NE(to_string(r), "?");
  const std::string bad = std::string(CCTUNE_SOURCE_DIR) + "/tests/fixtures/tuning/bad_spaces/unknown_requirement.json";
  try {
    load_space(bad, {});
    ADD_FAILURE() << "an unknown requirement was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(e.describe().find("unknown_requirement.json: key \"groups[1].requires\": \"ethernet\" is not allowed"), std::string::npos)
        << e.describe();
    EXPECT_NE(e.describe().find("net, rdma, socket, several_interfaces, pcie"), std::string::npos) << e.describe();
  }
  EXPECT_THROW(parse_space(base + R"({"name": "s", "env": {"NCCL_SOCKET_IFNAME": "{interfaces}"}}]})", "s.json"), UsageError);
}

int env_number(const GroupSpec& g, const char* key, int absent) {
  const auto it = g.env.find(key);
  return it == g.env.end() ? absent : std::stoi(it->second);
}

// NCCL caps NCCL_SOCKET_NTHREADS at 16 and threads x sockets at 64 (src/transport/net_socket.cc,
// MAX_THREADS and MAX_SOCKETS), silently lowering what is asked: a shipped group beyond them
// would measure a setting other than its name.
TEST(TransportGroups, ShippedSocketGroupsStayWithinNcclsLimits) {
  for (const char* name : {"quick", "default", "exhaustive"}) {
    int socket_groups = 0;
    for (const GroupSpec& g : load_space(name, {kSpaces}).groups) {
      const int threads = env_number(g, "NCCL_SOCKET_NTHREADS", 0);
      if (threads == 0) continue;
      ++socket_groups;
      const int socks = env_number(g, "NCCL_NSOCKS_PERTHREAD", 1);
      EXPECT_TRUE(threads >= 1 && threads <= 16 && socks >= 1 && threads * socks <= 64) << name << ": " << g.name;
      EXPECT_EQ(g.requires_, std::vector<GroupRequirement>{GroupRequirement::Socket}) << name << ": " << g.name;
    }
    EXPECT_GT(socket_groups, 0) << name;
  }
  for (const GroupSpec& g : load_space("default", {kSpaces}).groups) EXPECT_FALSE(g.description.empty()) << g.name;
}

// The exhaustive space is the reference the default space's search is judged against
// (bench/fast_vs_exhaustive.sh): it must measure every default group that can change its five
// collectives. Only groups of point-to-point settings (alltoall, sendrecv, gather, scatter: not
// in it) may be missing. register-local was.
TEST(TransportGroups, TheExhaustiveSpaceHoldsEveryDefaultGroupItsCollectivesUse) {
  const std::set<std::string> p2p_only = {"NCCL_P2P_NVL_CHUNKSIZE", "NCCL_MIN_P2P_NCHANNELS", "NCCL_MAX_P2P_NCHANNELS",
                                          "NCCL_P2P_NET_CHUNKSIZE", "NCCL_NCHANNELS_PER_NET_PEER"};
  const SearchSpace exhaustive = load_space("exhaustive", {kSpaces});
  for (const GroupSpec& g : load_space("default", {kSpaces}).groups) {
    const auto p2p_setting = [&](const auto& kv) { return p2p_only.count(kv.first) > 0; };
    if (!g.env.empty() && std::all_of(g.env.begin(), g.env.end(), p2p_setting)) continue;
    const auto same = std::find_if(exhaustive.groups.begin(), exhaustive.groups.end(),
                                   [&](const GroupSpec& e) { return e.env == g.env && e.requires_ == g.requires_; });
    EXPECT_NE(same, exhaustive.groups.end()) << g.name << " is in the default space and not in the exhaustive one";
  }
}

}  // namespace
}  // namespace cctune::tuner
