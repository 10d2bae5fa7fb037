// Real output from an 8xH200 NVSwitch host (nvidia-smi -q, NCCL topology dump) and broken
// fixture files.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/files.hpp"
#include "test_paths.hpp"
#include "topology/fixtures.hpp"
#include "topology/hwloc_probe.hpp"
#include "topology/paths.hpp"
#include "topology/topology_json.hpp"

namespace cctune::topo {
namespace {

using test::fixture;

NodeTopology h200() {
  return node_from_nvidia_smi_and_nccl(fixture("h200x8/nvsmi-q.txt"), fixture("h200x8/nccl-topo.xml"), "h200x8");
}

TEST(TopologyFixtures, NvidiaSmiQParses) {
  NvidiaSmiFacts f = parse_nvidia_smi_q(read_file(fixture("h200x8/nvsmi-q.txt")), "nvsmi-q.txt");
  EXPECT_EQ(f.driver, "580.159.04");
  EXPECT_EQ(f.cuda, "13.0");
  ASSERT_EQ(f.gpus.size(), 8u);
  EXPECT_EQ(f.gpus[0].name, "NVIDIA H200");
  EXPECT_EQ(f.gpus[0].pci_bus_id, "0000:00:06.0");
  EXPECT_EQ(f.gpus[7].pci_bus_id, "0000:00:0d.0");
  EXPECT_EQ(f.gpus[1].uuid, "GPU-00000000-0000-0000-0000-000000000002");
  EXPECT_EQ(f.gpus[0].memory_bytes, 143771ULL << 20);
  EXPECT_EQ(f.gpus[0].pcie_generation, 5);
  EXPECT_EQ(f.gpus[0].pcie_width, 16);
  EXPECT_EQ(f.gpus[0].pcie_max_width, 16);
}

TEST(TopologyFixtures, H200EveryPairIsNV18At478GBps) {
  NodeTopology n = h200();
  ASSERT_EQ(n.gpus.size(), 8u);
  for (const auto& a : n.gpus) {
    EXPECT_EQ(a.nvlinks.size(), 18u);
    EXPECT_NEAR(gpu_nvlink_GBps(a), 18 * 26.5625, 1e-9);  // 478.125 GB/s per direction
    for (const auto& b : n.gpus) {
      Path p = gpu_gpu_path(a, b);
      if (a.index == b.index) {
        EXPECT_EQ(p.label(), "X");
      } else {
        EXPECT_EQ(p.label(), "NV18") << a.index << "-" << b.index;
        EXPECT_NEAR(gpu_gpu_limit_GBps(a, b), 478.125, 1e-9);
      }
    }
  }
}

TEST(TopologyFixtures, SharedFixturesParseWhenPresent) {
  // CI has ../shared beside the clone; the GPU machine does not.
  const std::string shared = std::string(CCTUNE_SOURCE_DIR) + "/../shared/fixtures/h200x8/";
  std::string text;
  try {
    text = read_file(shared + "nvsmi-q.txt");
  } catch (const Error&) {
    GTEST_SKIP() << "no " << shared << " beside the checkout";
  }
  NodeTopology n = node_from_nvidia_smi_and_nccl(shared + "nvsmi-q.txt", shared + "nccl-topo.xml", "shared");
  EXPECT_EQ(n.gpus.size(), 8u);
  EXPECT_EQ(gpu_gpu_path(n.gpus[0], n.gpus[7]).label(), "NV18");
}

void expect_usage_error_naming(const std::function<void()>& fn, const std::string& path) {
  try {
    fn();
    ADD_FAILURE() << "no error for " << path;
  } catch (const UsageError& e) {
    EXPECT_NE(e.describe().find(path), std::string::npos) << e.describe();
    EXPECT_EQ(e.describe().find('\n'), std::string::npos) << e.describe();
  }
}

// Found by the topology fuzzer: a GPU index written as 5.7e42.
TEST(TopologyFixtures, FloatsBeyondIntAreUsageErrors) {
  std::string text = read_file(fixture("h200x4-live.json"));
  const auto at = text.find("\"index\": 0");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 10, "\"index\": 5.7e42");
  try {
    parse_topology(text, "edited.json");
    ADD_FAILURE() << "accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("out of range"), std::string::npos) << e.what();
  }
}

TEST(TopologyFixtures, BrokenFilesAreUsageErrorsNamingTheFile) {
  const std::string xml = fixture("bad/truncated-hwloc.xml");
  expect_usage_error_naming([&] { read_hwloc_xml(xml); }, xml);
  expect_usage_error_naming([&] { load_node_fixture(xml, fixture("dgx-h100-like.facts.json")); }, xml);
  const std::string facts = fixture("bad/truncated-topology.json");
  expect_usage_error_naming([&] { load_node_fixture(fixture("dgx-h100-like.xml"), facts); }, facts);
  const std::string smi = fixture("bad/truncated-nvsmi-q.txt");
  expect_usage_error_naming([&] { node_from_nvidia_smi_and_nccl(smi, fixture("h200x8/nccl-topo.xml"), "x"); }, smi);
  const std::string nccl = fixture("bad/truncated-nccl-topo.xml");
  expect_usage_error_naming([&] { node_from_nvidia_smi_and_nccl(fixture("h200x8/nvsmi-q.txt"), nccl, "x"); }, nccl);
  const std::string missing = fixture("no-such.xml");
  expect_usage_error_naming([&] { read_hwloc_xml(missing); }, missing);
  // Not nvidia-smi output at all.
  const std::string other = fixture("dgx-h100-like.facts.json");
  expect_usage_error_naming([&] { node_from_nvidia_smi_and_nccl(other, fixture("h200x8/nccl-topo.xml"), "x"); }, other);
}

}  // namespace
}  // namespace cctune::topo
