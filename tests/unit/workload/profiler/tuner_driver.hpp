#pragma once
// NCCL's side of the tuner plugin interface for the stand-in job (profiled_job_main.cpp): when
// NCCL_TUNER_PLUGIN names a library, NCCL dlopens it (the same path as the profiler plugin gives
// the same handle), calls init once per communicator and getCollInfo before each collective
// with its cost table. The table here offers ring and tree with the simple, ll and ll128
// protocols, ring/simple cheapest, as NCCL's model would on a small host.
#include <dlfcn.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "tuner/plugin/nccl_tuner_abi.hpp"

namespace cctune::tuner::testing {

class TunerDriver {
 public:
  // Loads NCCL_TUNER_PLUGIN when set (false: not set, or not a tuner: as NCCL, go on without).
  bool load(std::uint64_t comm_id, std::size_t nranks, std::size_t nnodes, nccl_abi::Logger log) {
    const char* path = std::getenv("NCCL_TUNER_PLUGIN");
    if (!path || !*path) return false;
    void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    tuner_ = lib ? static_cast<const nccl_abi::TunerV5*>(dlsym(lib, "ncclTunerPlugin_v5")) : nullptr;
    return tuner_ && tuner_->init(&context_, comm_id, nranks, nnodes, log, nullptr, nullptr) == nccl_abi::kSuccess;
  }
  // Asks the tuner about one call; true when it moved the cheapest cell away from ring/simple.
  bool ask(int nccl_func, std::size_t bytes) {
    if (!tuner_) return false;
    float table[kAlgorithms][kProtocols];
    for (auto& row : table)
      for (float& cost : row) cost = nccl_abi::kIgnoreCost;
    for (int a : {kTree, kRing})
      for (int p = 0; p < kProtocols; ++p) table[a][p] = 10.0f + static_cast<float>(a + p);
    table[kRing][kSimple] = 5.0f;
    int channels = 0;
    tuner_->get_coll_info(context_, nccl_func, bytes, 1, reinterpret_cast<float**>(table), kAlgorithms, kProtocols, 0, &channels);
    return table[kRing][kSimple] != 5.0f || channels != 0 || cheapest_is_not_ring_simple(table);
  }
  ~TunerDriver() {
    if (tuner_ && context_) tuner_->finalize(context_);
  }

 private:
  static constexpr int kAlgorithms = 7, kProtocols = 3, kTree = 0, kRing = 1, kSimple = 2;
  static bool cheapest_is_not_ring_simple(const float (&table)[kAlgorithms][kProtocols]) {
    for (int a = 0; a < kAlgorithms; ++a)
      for (int p = 0; p < kProtocols; ++p)
        if (table[a][p] >= 0 && table[a][p] < table[kRing][kSimple]) return true;
    return false;
  }
  const nccl_abi::TunerV5* tuner_ = nullptr;
  void* context_ = nullptr;
};

}  // namespace cctune::tuner::testing
