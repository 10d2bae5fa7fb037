// The live probes on this machine. Written to hold both here (no GPU, no RDMA device)
// and on a GPU node: absences must come with reasons, never as errors.
#include <gtest/gtest.h>

#include <sched.h>

#include "core/error.hpp"
#include "test_paths.hpp"
#include "topology/binding.hpp"
#include "topology/fixtures.hpp"
#include "topology/hwloc_probe.hpp"
#include "topology/node_probe.hpp"
#include "topology/nvml_probe.hpp"
#include "topology/rdma_probe.hpp"

namespace cctune::topo {
namespace {

TEST(TopologyProbe, LocalNodeHasCpusAndExplainsWhatIsMissing) {
  NodeTopology n = probe_local_node();
  EXPECT_FALSE(n.hostname.empty());
  EXPECT_GT(n.cpu.pus, 0);
  EXPECT_FALSE(n.numa_nodes.empty());
  EXPECT_FALSE(n.software.hwloc.empty());
  auto reason = [&](const std::string& c) {
    for (const auto& a : n.absences)
      if (a.component == c) return a.reason;
    return std::string();
  };
  if (n.gpus.empty()) {
    EXPECT_FALSE(reason("gpu").empty());
  }
  if (n.nics.empty()) {
    EXPECT_FALSE(reason("rdma").empty());
  }
  for (const auto& i : n.net_interfaces) EXPECT_NE(i.name, "lo");
}

TEST(TopologyProbe, MissingNvmlLibraryIsAnAbsenceWithTheReason) {
  NvmlFacts f = probe_nvml("libnvidia-ml-does-not-exist.so.1");
  EXPECT_TRUE(f.gpus.empty());
  EXPECT_NE(f.absent_reason.find("libnvidia-ml-does-not-exist.so.1 not found"), std::string::npos) << f.absent_reason;
}

// NVML sees every GPU of the machine; a process given some by CUDA_VISIBLE_DEVICES (a one-box
// cluster host, a node without device cgroups) lists only those, as CUDA reads the variable.
TEST(TopologyProbe, CudaVisibleDevicesChoosesTheGpusListed) {
  const std::string u1 = "GPU-8f2c1a44-0000-1111-2222-333344445555";
  EXPECT_TRUE(visible_to_cuda(nullptr, 3, u1));
  EXPECT_TRUE(visible_to_cuda("2,3", 3, u1));
  EXPECT_FALSE(visible_to_cuda("2,3", 1, u1));
  EXPECT_TRUE(visible_to_cuda(" 1 , 3", 3, u1));
  EXPECT_TRUE(visible_to_cuda("GPU-8f2c", 0, u1));  // a UUID prefix
  EXPECT_FALSE(visible_to_cuda("GPU-9", 0, u1));
  EXPECT_FALSE(visible_to_cuda("", 0, u1));
  EXPECT_FALSE(visible_to_cuda("-1", 0, u1));
  EXPECT_FALSE(visible_to_cuda("0,-1,1", 1, u1));  // CUDA stops at the first entry it cannot read
  EXPECT_FALSE(visible_to_cuda("99999999999999999999", 0, u1));
}

TEST(TopologyProbe, IbverbsEnumsToRates) {
  EXPECT_EQ(ib_width_lanes(2), 4);            // IBV_WIDTH_4X
  EXPECT_EQ(ib_lane_Gbps(128), 100.0);        // NDR
  EXPECT_EQ(ib_width_lanes(2) * ib_lane_Gbps(64), 200.0);  // HDR 4x
}

TEST(TopologyBinding, CpusetOfGpuNumaNodeAndNearestNics) {
  NodeTopology n = load_node_fixture(test::fixture("dgx-h100-like.xml"), test::fixture("dgx-h100-like.facts.json"));
  EXPECT_EQ(gpu_cpuset(n, "0"), "0-7");
  EXPECT_EQ(gpu_cpuset(n, "0000:c5:00.0"), "8-15");
  EXPECT_EQ(nearest_nic_names(n, "6"), std::vector<std::string>{"mlx5_6"});
  EXPECT_THROW(gpu_cpuset(n, "8"), UsageError);
}

TEST(TopologyBinding, BindsThisProcessAndRestores) {
  const std::string before = current_cpu_binding();
  ASSERT_FALSE(before.empty());
  // A one-GPU node whose GPU sits on NUMA node 0 of a node shaped like this machine.
  NodeTopology n = probe_local_node();
  Gpu g;
  g.index = 0;
  g.pci_bus_id = "0000:01:00.0";
  g.numa_node = n.numa_nodes.front().os_index;
  n.gpus = {g};
  n.numa_nodes.front().cpuset = "0";  // bind to CPU 0 only, to see the effect
  bind_process_to_gpu(n, "0");
  cpu_set_t set;
  ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  EXPECT_EQ(CPU_COUNT(&set), 1);
  EXPECT_TRUE(CPU_ISSET(0, &set));
  EXPECT_EQ(current_cpu_binding(), "0");
  bind_process_to_cpuset(before);
  EXPECT_EQ(current_cpu_binding(), before);
  EXPECT_THROW(bind_process_to_cpuset("not-a-cpu-list"), UsageError);
}

}  // namespace
}  // namespace cctune::topo
