#include "collectives/nccl/cublas_calls.hpp"

#include <cuda_runtime.h>
#include <dlfcn.h>

#include "core/error.hpp"

namespace cctune::nccl_detail {
namespace {

// The major version this module was built with first (cuBLAS and the CUDA runtime share it),
// then the one before: cuBLAS 12 (PyTorch's cu12 wheels) runs under a CUDA 13 driver, and its
// GEMM shares our streams through the driver's primary context. Then the toolkit's own folder,
// for a host whose loader path does not name it.
void* open_first(std::string& opened) {
  const int major = CUDART_VERSION / 1000;
  for (const std::string& name : {"libcublas.so." + std::to_string(major), "libcublas.so." + std::to_string(major - 1),
                                  "/usr/local/cuda/lib64/libcublas.so." + std::to_string(major)})
    if (void* lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      opened = name;
      return lib;
    }
  opened = "libcublas.so." + std::to_string(major);
  return nullptr;
}

CublasCalls open_cublas() {
  CublasCalls calls;
  void* lib = open_first(calls.library);
  const std::string fix = "put " + calls.library +
                          " on LD_LIBRARY_PATH (the CUDA toolkit's lib64, or PyTorch's pip package nvidia-cublas, "
                          "site-packages/nvidia/cublas/lib), or sweep without --overlap";
  if (!lib) {
    const char* why = dlerror();
    throw EnvironmentError("--overlap runs cuBLAS GEMMs beside the collectives, and " + calls.library + " could not be loaded (" +
                               (why ? why : "not found") + ")",
                           fix);
  }
  const auto find = [&](const char* name) {
    void* f = dlsym(lib, name);
    if (!f) throw EnvironmentError(calls.library + " lacks " + name + ", which --overlap calls", fix);
    return f;
  };
  calls.create = reinterpret_cast<CublasCalls::CreateFn>(find("cublasCreate_v2"));
  calls.destroy = reinterpret_cast<CublasCalls::DestroyFn>(find("cublasDestroy_v2"));
  calls.set_stream = reinterpret_cast<CublasCalls::SetStreamFn>(find("cublasSetStream_v2"));
  calls.set_workspace = reinterpret_cast<CublasCalls::SetWorkspaceFn>(find("cublasSetWorkspace_v2"));
  calls.gemm_ex = reinterpret_cast<CublasCalls::GemmExFn>(find("cublasGemmEx"));
  return calls;  // `lib` stays open for the process
}

}  // namespace

const CublasCalls& cublas_calls() {
  static const CublasCalls calls = open_cublas();  // a throw leaves it unset: the next call retries
  return calls;
}

void check_cublas(cublasStatus_t status, const char* what) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  throw RuntimeFailure(std::string(what) + " failed: cuBLAS status " + std::to_string(static_cast<int>(status)),
                       "check the GPU's free memory and the cuBLAS version (--overlap needs cuBLAS 12 or newer)");
}

}  // namespace cctune::nccl_detail
