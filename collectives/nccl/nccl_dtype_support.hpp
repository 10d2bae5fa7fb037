#pragma once
// Which dtypes the NCCL in hand can run: fp8 (float8e4m3, float8e5m2) came with NCCL 2.24,
// and NCCL runs fp8 reductions only on sm_90 and newer (older architectures get no-op
// kernels). GPU-free: versions and the compute capability are passed in, so the reasons are
// unit-tested; the backend fills them from nccl.h, ncclGetVersion and the device.
#include <string>

#include "core/collective.hpp"

namespace cctune::nccl_detail {

// NCCL version codes as NCCL_VERSION(2, 24, 0) = 22400.
inline constexpr int kNcclFp8Version = 22400;
inline constexpr int kFp8ComputeCapability = 90;  // major * 10 + minor

struct NcclDtypeSupport {
  int header_version = 0;      // NCCL_VERSION_CODE of the nccl.h cctune was built against
  int library_version = 0;     // ncclGetVersion() of the loaded libnccl
  int compute_capability = 0;  // of this rank's GPU, major * 10 + minor
};

// "2.24.0" from 22400 (and from NCCL < 2.9's 2804 encoding).
std::string nccl_version_string(int code);

// Empty when NCCL can run `t` here; else why not, naming the fix.
std::string nccl_dtype_unsupported(DType t, const NcclDtypeSupport& have);

}  // namespace cctune::nccl_detail
