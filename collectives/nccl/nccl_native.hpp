#pragma once
// NCCL's native alltoall, gather and scatter (ncclAlltoAll, ncclGather, ncclScatter; NCCL 2.28
// added them), found in the libnccl this process loaded, at run time: the module is built
// against one NCCL and may run with an older one, where calling them directly would fail to
// load. nccl-tests reaches them through weak symbols for the same reason.
#include <cuda_runtime.h>
#include <nccl.h>

#include <string>

#include "core/collective.hpp"

namespace cctune::nccl_detail {

struct NativeP2pCalls {
  using AllToAllFn = ncclResult_t (*)(const void*, void*, size_t, ncclDataType_t, ncclComm_t, cudaStream_t);
  using RootedFn = ncclResult_t (*)(const void*, void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
  AllToAllFn alltoall = nullptr;
  RootedFn gather = nullptr;
  RootedFn scatter = nullptr;

  // The loaded NCCL has the native call of `c` (false for collectives without one).
  bool has(Collective c) const noexcept;
};

// Looks the three symbols up in the shared library that defines ncclGetVersion (the one
// linked); each is null where that library lacks it.
NativeP2pCalls find_native_p2p_calls();

// `name` from the shared library that defines ncclGetVersion, or null where it lacks it.
void* loaded_nccl_symbol(const char* name);

// 22803 -> "2.28.3"
std::string nccl_version_text(int nccl_version_code);

// "ncclGather is absent from the loaded NCCL 2.27.7 (NCCL 2.28 added it)": for a skip reason.
std::string native_absent_reason(Collective c, int nccl_version_code);

}  // namespace cctune::nccl_detail
