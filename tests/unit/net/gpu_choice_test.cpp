// Which GPU holds a rank's probe buffers, on the DGX-H100-like topology fixture.
#include <gtest/gtest.h>

#include "net/gpu_choice.hpp"
#include "topology/fixtures.hpp"

namespace cctune::net {
namespace {

topo::NodeTopology dgx() {
  const std::string dir = std::string(CCTUNE_SOURCE_DIR) + "/tests/fixtures/topology/";
  return topo::load_node_fixture(dir + "dgx-h100-like.xml", dir + "dgx-h100-like.facts.json");
}

TEST(GpuChoice, TheGpuUnderTheNicsSwitch) {
  const auto n = dgx();
  EXPECT_EQ(nearest_gpu_bus_id(n, "mlx5_0", 0), n.gpus[0].pci_bus_id);  // PIX
  EXPECT_EQ(nearest_gpu_bus_id(n, "mlx5_0", 5), n.gpus[0].pci_bus_id);  // the only PIX GPU
  EXPECT_EQ(nearest_gpu_bus_id(n, "mlx5_5", 0), n.gpus[5].pci_bus_id);
  EXPECT_EQ(nearest_gpu_bus_id(n, "mlx5_7", 0), n.gpus[7].pci_bus_id);
}

TEST(GpuChoice, TiesSpreadByLocalIndex) {
  auto n = dgx();
  // GPU1 moved under mlx5_0's bridge: two GPUs at PIX, local ranks take one each.
  n.gpus[1].placement = n.gpus[0].placement;
  EXPECT_EQ(nearest_gpu_bus_id(n, "mlx5_0", 0), n.gpus[0].pci_bus_id);
  EXPECT_EQ(nearest_gpu_bus_id(n, "mlx5_0", 1), n.gpus[1].pci_bus_id);
  EXPECT_EQ(nearest_gpu_bus_id(n, "mlx5_0", 2), n.gpus[0].pci_bus_id);
}

TEST(GpuChoice, UnknownNicOrNoGpuLeavesItToTheCaller) {
  auto n = dgx();
  EXPECT_EQ(nearest_gpu_bus_id(n, "mlx5_42", 0), "");
  n.gpus.clear();
  EXPECT_EQ(nearest_gpu_bus_id(n, "mlx5_0", 0), "");
}

}  // namespace
}  // namespace cctune::net
