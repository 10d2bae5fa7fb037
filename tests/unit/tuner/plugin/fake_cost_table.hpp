#pragma once
// A cost table in NCCL's shape (float[7][3], algorithms x protocols, -1 = unsupported), as
// NCCL 2.28 builds it for an 8-GPU single-node AllReduce with CollNet and NVLS unavailable.
#include <algorithm>
#include <array>

namespace cctune::tuner::testing {

constexpr int kAlgos = 7;
constexpr int kProtos = 3;
constexpr float kIgnore = -1.0f;

struct FakeCostTable {
  //                               LL     LL128   Simple
  float cells[kAlgos][kProtos] = {{10.5f, 12.0f, 30.0f},        // tree
                                  {8.25f, 9.0f, 25.0f},         // ring  <- NCCL's pick: ring/ll
                                  {kIgnore, kIgnore, kIgnore},  // collnet_direct
                                  {kIgnore, kIgnore, kIgnore},  // collnet_chain
                                  {kIgnore, kIgnore, kIgnore},  // nvls
                                  {kIgnore, kIgnore, kIgnore},  // nvls_tree
                                  {kIgnore, kIgnore, kIgnore}};  // pat
  float** as_nccl_passes_it() { return reinterpret_cast<float**>(cells); }
  float at(int a, int p) const { return cells[a][p]; }
  bool equals(const FakeCostTable& other) const {
    return std::equal(&cells[0][0], &cells[0][0] + kAlgos * kProtos, &other.cells[0][0]);
  }
};

}  // namespace cctune::tuner::testing
