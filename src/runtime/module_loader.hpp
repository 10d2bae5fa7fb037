#pragma once
// Finding and loading libcctune-nccl.so (the only code that links CUDA and NCCL) in a
// worker. The cctune executable never links either, so it starts where they are absent.
#include <memory>
#include <string>

#include "collectives/nccl/nccl_module.hpp"

namespace cctune::runtime {

// CCTUNE_NCCL_MODULE when set (unusual layouts), else libcctune-nccl.so next to the
// executable, else ../lib/libcctune-nccl.so (an installed tree).
std::string nccl_module_path(const std::string& executable);

// dlopen + the factory. Throws EnvironmentError "NCCL backend could not be loaded:
// <dlerror()>" with the fix. The library stays loaded for the life of the process.
std::unique_ptr<NcclModule> load_nccl_module(const std::string& path);

// The module a worker uses: load_nccl_module(nccl_module_path(executable)). Tests name their
// GPU-free stand-in with CCTUNE_NCCL_MODULE (docs/TESTING.md).
std::unique_ptr<NcclModule> load_worker_module(const std::string& executable);

}  // namespace cctune::runtime
