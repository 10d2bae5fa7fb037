#pragma once
// cuBLAS, found at run time (dlopen), for the `--overlap` compute load only: the module links
// cudart statically and must load where the driver and libnccl alone are installed, as it finds
// NCCL's optional calls at run time (nccl_native.hpp). The header gives the types; nothing links
// against libcublas. A library that cannot be opened, or lacks a call, is an EnvironmentError of
// one line that names the library and how to provide it.
#include <cublas_api.h>

#include <string>

namespace cctune::nccl_detail {

struct CublasCalls {
  using CreateFn = cublasStatus_t (*)(cublasHandle_t*);
  using DestroyFn = cublasStatus_t (*)(cublasHandle_t);
  using SetStreamFn = cublasStatus_t (*)(cublasHandle_t, cudaStream_t);
  using SetWorkspaceFn = cublasStatus_t (*)(cublasHandle_t, void*, size_t);
  using GemmExFn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*, const void*,
                                      cudaDataType, int, const void*, cudaDataType, int, const void*, void*, cudaDataType, int,
                                      cublasComputeType_t, cublasGemmAlgo_t);
  CreateFn create = nullptr;
  DestroyFn destroy = nullptr;
  SetStreamFn set_stream = nullptr;
  SetWorkspaceFn set_workspace = nullptr;
  GemmExFn gemm_ex = nullptr;
  std::string library;  // the file name it was opened by, for messages
};

// The cuBLAS of this build's CUDA major version (libcublas.so.<major>, else the major before),
// opened once per process and never closed (its kernels outlive any handle). Throws
// EnvironmentError naming the library.
const CublasCalls& cublas_calls();

// Throws RuntimeFailure naming `what` and the status when `status` is not CUBLAS_STATUS_SUCCESS.
void check_cublas(cublasStatus_t status, const char* what);

}  // namespace cctune::nccl_detail
