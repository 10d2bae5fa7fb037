#include "runtime/groups.hpp"

#include <gtest/gtest.h>

#include <utility>

#include "core/error.hpp"
#include "support/thrown.hpp"

namespace cctune::runtime {
namespace {

using Env = std::map<std::string, std::string>;

TEST(Groups, TransportPresets) {
  EXPECT_EQ(transport_group("nvlink").env, Env{});
  EXPECT_EQ(transport_group("pcie").env, (Env{{"NCCL_P2P_DISABLE", "1"}}));
  EXPECT_EQ(transport_group("net").env, (Env{{"NCCL_P2P_DISABLE", "1"}, {"NCCL_SHM_DISABLE", "1"}}));
  const auto g = transport_groups("nvlink,pcie,net");
  ASSERT_EQ(g.size(), 3u);
  EXPECT_EQ(g[0].label, "nvlink");
  EXPECT_EQ(g[2].label, "net");
  EXPECT_THROW(transport_groups("nvlink,nvlink"), UsageError);
  EXPECT_THROW(transport_groups("ib"), UsageError);
  EXPECT_THROW(transport_groups(""), UsageError);
}

TEST(Groups, EnvGroup) {
  const auto g = parse_env_group("big:NCCL_BUFFSIZE=8388608,NCCL_NTHREADS=512");
  EXPECT_EQ(g.label, "big");
  EXPECT_EQ(g.env, (Env{{"NCCL_BUFFSIZE", "8388608"}, {"NCCL_NTHREADS", "512"}}));
  for (const char* bad : {"nolabel", ":A=1", "x:A", "x:=1", "a b:A=1"}) EXPECT_THROW(parse_env_group(bad), UsageError) << bad;
}

// A registration value PyTorch would refuse is refused before any worker starts, naming it.
TEST(Groups, EnvGroupRegistrationValueIsCheckedUpFront) {
  const std::string key = "TORCH_NCCL_USE_TENSOR_REGISTER_ALLOCATOR_HOOK";
  EXPECT_EQ(parse_env_group("reg:" + key + "=1").env, (Env{{key, "1"}}));
  EXPECT_EQ(parse_env_group("reg:" + key + "=true").env, (Env{{key, "true"}}));
  for (const char* value : {"on", "", "2"}) {
    const std::string m = cctune::testing::thrown_description<UsageError>([&] { parse_env_group("reg:" + key + "=" + value); });
    EXPECT_NE(m.find("--env-group reg sets " + key + "=" + value + ","), std::string::npos) << m;
  }
}

// --env-group follows a space file's rule (core/nccl_settings.hpp, group_setting_problem) and
// takes only what nccl.env can carry: before, any key and value went to the workers and, should
// the group win, into the profile (LD_PRELOAD included), or failed tune at the end of the sweep.
TEST(Groups, EnvGroupTakesWhatASpaceFileTakes) {
  EXPECT_EQ(parse_env_group("ifname:NCCL_SOCKET_IFNAME==eth0").env, (Env{{"NCCL_SOCKET_IFNAME", "=eth0"}}));
  const std::pair<const char*, const char*> refused[] = {
      {"x:LD_PRELOAD=/tmp/a.so", "--env-group x sets LD_PRELOAD=/tmp/a.so, refused: LD_PRELOAD is not an NCCL setting"},
      {"x:TORCH_NCCL_BLOCKING_WAIT=1", "TORCH_NCCL_BLOCKING_WAIT is not an NCCL setting"},
      {"x:NCCL_TUNER_PLUGIN=/tmp/t.so", "NCCL_TUNER_PLUGIN is set by cctune itself"},
      {"x:NCCL_SOCKET_IFNAME=eth0 eth1",
       "--env-group x sets NCCL_SOCKET_IFNAME=eth0 eth1, refused: NCCL_SOCKET_IFNAME is \"eth0 eth1\", which nccl.env cannot carry"},
      {"x:NCCL_IB_HCA=$HOME", "nccl.env cannot carry"},
      {"x:NCCL_BUFFSIZE=", "nccl.env cannot carry"},
      {"x:NCCL-X=1", "NCCL-X is not an NCCL setting"},
  };
  for (const auto& [text, message] : refused) {
    const std::string m = cctune::testing::thrown_description<UsageError>([&] { parse_env_group(text); });
    EXPECT_NE(m.find(message), std::string::npos) << text << ": " << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
}

// A library NCCL loads or a file it reads or writes is the caller's to set, never a group's: a
// group may come from someone else's space, profile or results file (review R1, J17: a profile
// naming NCCL_PROFILER_PLUGIN replaced cctune's profiler half; NCCL_DEBUG_FILE writes anywhere).
TEST(Groups, EnvGroupNamesNoLibraryAndNoFile) {
  for (const char* key : {"NCCL_PROFILER_PLUGIN", "NCCL_NET_PLUGIN", "NCCL_ENV_PLUGIN", "NCCL_DEBUG_FILE", "NCCL_CONF_FILE",
                          "NCCL_TOPO_DUMP_FILE", "NCCL_GRAPH_FILE"}) {
    const std::string m = cctune::testing::thrown_description<UsageError>([&] { parse_env_group(std::string("x:") + key + "=/tmp/a"); });
    EXPECT_NE(m.find(std::string(key) + " names a library NCCL loads or a file it reads or writes"), std::string::npos) << m;
    EXPECT_NE(m.find("your own environment"), std::string::npos) << m;
  }
}

// Labels are names as a space file's groups are, and none reads as another side (review R14).
TEST(Groups, EnvGroupLabelsAreBoundedNamesOfTheirOwn) {
  EXPECT_EQ(parse_env_group(std::string(64, 'a') + ":NCCL_BUFFSIZE=1").label, std::string(64, 'a'));
  const std::pair<std::string, const char*> refused[] = {
      {std::string(65, 'a') + ":NCCL_BUFFSIZE=1", "at most 64"},
      {"..:NCCL_BUFFSIZE=1", "must start with a letter or digit"},
      {".x:NCCL_BUFFSIZE=1", "must start with a letter or digit"},
      {"default:NCCL_BUFFSIZE=1", "is reserved"},
      {"profile:NCCL_BUFFSIZE=1", "is reserved"},
      {"nvlink:NCCL_BUFFSIZE=1", "is reserved"},
      {"x:", "sets nothing"},
      {"x:NCCL_BUFFSIZE=1,NCCL_BUFFSIZE=2", "sets NCCL_BUFFSIZE twice"},
      {"\x1b]0;PWN\a:NCCL_A=1", "--env-group label '\\x1b]0;PWN\\x07'"},
  };
  for (const auto& [text, message] : refused) {
    const std::string m = cctune::testing::thrown_description<UsageError>([&] { parse_env_group(text); });
    EXPECT_NE(m.find(message), std::string::npos) << text.substr(0, 80) << ": " << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    EXPECT_LT(m.size(), 400u) << m;
  }
}

TEST(Groups, EnvGroupMayOnlyDisableNvls) {
  EXPECT_EQ(parse_env_group("nvls-off:NCCL_NVLS_ENABLE=0").env, (Env{{"NCCL_NVLS_ENABLE", "0"}}));
  for (const char* value : {"1", "2", ""}) {
    try {
      parse_env_group(std::string("on:NCCL_NVLS_ENABLE=") + value);
      ADD_FAILURE() << "NCCL_NVLS_ENABLE=" << value << " was accepted";
    } catch (const UsageError& e) {
      const std::string m = e.describe();
      EXPECT_EQ(m.find('\n'), std::string::npos) << m;
      EXPECT_NE(m.find("may only disable NVLS"), std::string::npos) << m;
      EXPECT_NE(m.find("NCCL_NVLS_ENABLE=0"), std::string::npos) << m;
    }
  }
}

TEST(Groups, OwnershipOneRankPerNode) {
  EXPECT_EQ(owned_devices("h", 1, 0, 8, 0), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(owned_devices("h", 1, 0, 8, 2), (std::vector<int>{0, 1}));
  try {
    owned_devices("h", 1, 0, 2, 4);
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_EQ(e.what_only(), "--gpus 4 but h has 2 GPUs");
  }
  EXPECT_THROW(owned_devices("h", 1, 0, 0, 0), EnvironmentError);
}

TEST(Groups, OwnershipSeveralRanksPerNode) {
  EXPECT_EQ(owned_devices("h", 8, 3, 8, 0), std::vector<int>{3});
  EXPECT_EQ(owned_devices("h", 2, 1, 8, 1), std::vector<int>{1});
  try {
    owned_devices("h", 3, 0, 2, 0);
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_EQ(e.what_only(), "3 ranks on h but only 2 GPUs");
  }
  EXPECT_THROW(owned_devices("h", 2, 0, 8, 4), UsageError);
}

TEST(Groups, Layout) {
  // Two nodes: a has two supervisors of one GPU each, b one supervisor of four GPUs.
  const std::vector<SupervisorSlot> slots = {{"a", 1}, {"a", 1}, {"b", 4}};
  const auto l1 = layout_workers(slots, 1);
  EXPECT_EQ(l1.nranks, 6);
  EXPECT_EQ(l1.first_rank, 1);
  EXPECT_EQ(l1.node_offset, 1);
  EXPECT_EQ(l1.node_workers, 2);
  EXPECT_EQ(l1.real_nodes, 2);
  EXPECT_EQ(l1.local_index, 1);
  EXPECT_EQ(l1.ranks_on_node, 2);
  const auto l2 = layout_workers(slots, 2);
  EXPECT_EQ(l2.first_rank, 2);
  EXPECT_EQ(l2.node_offset, 0);
  EXPECT_EQ(l2.node_workers, 4);
}

TEST(Groups, EmulatedHostIds) {
  EXPECT_EQ(emulated_host_id("h", 0, 8, 2), "h-emu0");
  EXPECT_EQ(emulated_host_id("h", 3, 8, 2), "h-emu0");
  EXPECT_EQ(emulated_host_id("h", 4, 8, 2), "h-emu1");
  EXPECT_EQ(emulated_host_id("h", 7, 8, 4), "h-emu3");
  EXPECT_THROW(emulated_host_id("h", 0, 8, 3), UsageError);
  EXPECT_THROW(emulated_host_id("h", 0, 2, 4), UsageError);
  EXPECT_THROW(emulated_host_id("h", 0, 2, 0), UsageError);
}

TEST(Groups, SharedGpuOwnership) {
  // More ranks than GPUs: refused, except in the shared-GPU test mode (rank i on GPU i % n).
  EXPECT_THROW(owned_devices("h", 2, 1, 1, 0), UsageError);
  EXPECT_EQ(owned_devices("h", 2, 1, 1, 0, true), std::vector<int>{0});
  EXPECT_EQ(owned_devices("h", 4, 3, 2, 0, true), std::vector<int>{1});
  EXPECT_EQ(owned_devices("h", 4, 2, 2, 0, true), std::vector<int>{0});
  // With enough GPUs nothing changes; --gpus keeps its rules; no GPU is still no GPU.
  EXPECT_EQ(owned_devices("h", 2, 1, 8, 0, true), std::vector<int>{1});
  EXPECT_EQ(owned_devices("h", 1, 0, 4, 2, true), (std::vector<int>{0, 1}));
  EXPECT_THROW(owned_devices("h", 1, 0, 1, 2, true), UsageError);
  EXPECT_THROW(owned_devices("h", 3, 0, 1, 2, true), UsageError);
  EXPECT_THROW(owned_devices("h", 2, 0, 0, 0, true), EnvironmentError);
}

TEST(Groups, SharedGpuWorkerDevices) {
  EXPECT_EQ(worker_devices({0, 1}, 0), (std::vector<int>{0, 1}));
  EXPECT_EQ(worker_devices({0, 1}, 1), (std::vector<int>{0, 1}));
  EXPECT_EQ(worker_devices({0, 1}, 2), (std::vector<int>{0, 0, 1, 1}));
  EXPECT_EQ(worker_devices({0}, 4), (std::vector<int>{0, 0, 0, 0}));
}

// A whole job on one host: each supervisor's workers and their NCCL_HOSTIDs.
std::vector<std::string> job_host_ids(const std::vector<SupervisorSlot>& slots, int emulate_nodes, bool shared) {
  std::vector<std::string> all;
  for (int r = 0; r < static_cast<int>(slots.size()); ++r) {
    const auto ids = worker_host_ids(slots[static_cast<std::size_t>(r)].host, layout_workers(slots, r),
                                     slots[static_cast<std::size_t>(r)].workers, emulate_nodes, shared);
    all.insert(all.end(), ids.begin(), ids.end());
  }
  return all;
}

TEST(Groups, SharedGpuHostIds) {
  // One GPU, mpirun -np 2, --test-shared-gpu 2: four workers, four hosts.
  const std::vector<SupervisorSlot> two = {{"h", 2}, {"h", 2}};
  EXPECT_EQ(job_host_ids(two, 1, true), (std::vector<std::string>{"h-shared0", "h-shared1", "h-shared2", "h-shared3"}));
  EXPECT_EQ(job_nodes(layout_workers(two, 0), 1, true), 4);
  // Two real hosts: ids stay distinct across the job (the host name leads).
  const std::vector<SupervisorSlot> hosts = {{"a", 2}, {"b", 2}};
  EXPECT_EQ(job_host_ids(hosts, 1, true), (std::vector<std::string>{"a-shared0", "a-shared1", "b-shared0", "b-shared1"}));
  EXPECT_EQ(job_nodes(layout_workers(hosts, 1), 1, true), 4);
  // Outside the test mode: NCCL's own host id, or --emulate-nodes' blocks.
  EXPECT_EQ(job_host_ids(two, 1, false), (std::vector<std::string>(4, "")));
  EXPECT_EQ(job_host_ids(two, 2, false), (std::vector<std::string>{"h-emu0", "h-emu0", "h-emu1", "h-emu1"}));
  EXPECT_EQ(job_nodes(layout_workers(two, 0), 2, false), 2);
  EXPECT_EQ(job_nodes(layout_workers(hosts, 0), 1, false), 2);
}

}  // namespace
}  // namespace cctune::runtime
