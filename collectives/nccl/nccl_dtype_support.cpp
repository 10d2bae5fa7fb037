#include "collectives/nccl/nccl_dtype_support.hpp"

namespace cctune::nccl_detail {

std::string nccl_version_string(int code) {
  const bool old_encoding = code < 10000;  // NCCL <= 2.8: major*1000 + minor*100 + patch
  const int major = old_encoding ? code / 1000 : code / 10000;
  const int minor = old_encoding ? code / 100 % 10 : code / 100 % 100;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(code % 100);
}

std::string nccl_dtype_unsupported(DType t, const NcclDtypeSupport& have) {
  if (!is_fp8(t)) return {};
  const std::string name = to_string(t);
  if (have.header_version < kNcclFp8Version)
    return "this cctune was built against NCCL " + nccl_version_string(have.header_version) + ", which has no " + name +
           " (fp8 came with NCCL 2.24): rebuild against NCCL 2.24 or newer";
  if (have.library_version < kNcclFp8Version)
    return name + " needs NCCL 2.24 or newer; the loaded NCCL is " + nccl_version_string(have.library_version) +
           " (set LD_LIBRARY_PATH to a newer libnccl)";
  if (have.compute_capability < kFp8ComputeCapability)
    return name + " needs a GPU of compute capability 9.0 or newer (NCCL runs fp8 on sm_90+); this GPU is " +
           std::to_string(have.compute_capability / 10) + "." + std::to_string(have.compute_capability % 10);
  return {};
}

}  // namespace cctune::nccl_detail
