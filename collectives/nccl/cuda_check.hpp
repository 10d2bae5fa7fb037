#pragma once
// Check macros for CUDA and NCCL calls (nvbench's cuda_call.cuh habit): a failing call
// throws cctune::RuntimeFailure naming file:line, the call's text and the library's own
// error string. Only code inside libcctune-nccl.so includes this header.
#include <cuda_runtime.h>
#include <nccl.h>

#include <string>

#include "core/error.hpp"

namespace cctune::nccl_detail {

[[noreturn]] void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line);
[[noreturn]] void throw_nccl_error(ncclResult_t res, ncclComm_t comm, const char* call, const char* file, int line);

inline void check_cuda(cudaError_t err, const char* call, const char* file, int line) {
  if (err != cudaSuccess) throw_cuda_error(err, call, file, line);
}

inline void check_nccl(ncclResult_t res, ncclComm_t comm, const char* call, const char* file, int line) {
  if (res != ncclSuccess && res != ncclInProgress) throw_nccl_error(res, comm, call, file, line);
}

}  // namespace cctune::nccl_detail

#define CCTUNE_CUDA_CHECK(call) ::cctune::nccl_detail::check_cuda((call), #call, __FILE__, __LINE__)
// `comm` may be nullptr; when given, ncclGetLastError(comm) adds NCCL's detailed message.
#define CCTUNE_NCCL_CHECK(call, comm) ::cctune::nccl_detail::check_nccl((call), (comm), #call, __FILE__, __LINE__)
