#include "collectives/nccl/cuda_check.hpp"

#include <cstring>

namespace cctune::nccl_detail {
namespace {

const char* base_name(const char* file) {
  const char* slash = std::strrchr(file, '/');
  return slash ? slash + 1 : file;
}

std::string cuda_fix(cudaError_t err) {
  switch (err) {
    case cudaErrorMemoryAllocation:
      return "use smaller sizes (--max-bytes) or free GPU memory (nvidia-smi shows other processes)";
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
      return "check that nvidia-smi sees the GPU and that the driver supports CUDA runtime " +
             std::to_string(CUDART_VERSION / 1000) + "." + std::to_string(CUDART_VERSION % 1000 / 10);
    case cudaErrorInvalidDevice:
      return "check CUDA_VISIBLE_DEVICES and --gpus";
    default:
      return "see the worker log under <output>/workers/ for NCCL's own messages";
  }
}

}  // namespace

void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line) {
  throw RuntimeFailure(std::string(base_name(file)) + ":" + std::to_string(line) + ": " + call + " failed: " +
                           cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")",
                       cuda_fix(err));
}

void throw_nccl_error(ncclResult_t res, ncclComm_t comm, const char* call, const char* file, int line) {
  std::string message = std::string(base_name(file)) + ":" + std::to_string(line) + ": " + call + " failed: " +
                        ncclGetErrorString(res);
  const char* last = ncclGetLastError(comm);
  if (last && *last) message += ": " + std::string(last);
  std::string fix = "run with NCCL_DEBUG=INFO and read the worker log under <output>/workers/";
  if (res == ncclSystemError || res == ncclRemoteError)
    fix = "a peer died or the network failed; " + fix;
  else if (res == ncclInvalidUsage || res == ncclInvalidArgument)
    fix = "this is a cctune bug or an NCCL_* setting NCCL rejects; " + fix;
  throw RuntimeFailure(message, fix);
}

}  // namespace cctune::nccl_detail
