// Which dtypes the NCCL backend refuses, and why (collectives/nccl/nccl_dtype_support.hpp).
#include "collectives/nccl/nccl_dtype_support.hpp"

#include <gtest/gtest.h>

namespace cctune::nccl_detail {
namespace {

constexpr NcclDtypeSupport kH100With228{22809, 22803, 90};

TEST(NcclDtypeSupport, VersionStrings) {
  EXPECT_EQ(nccl_version_string(22809), "2.28.9");
  EXPECT_EQ(nccl_version_string(22400), "2.24.0");
  EXPECT_EQ(nccl_version_string(2804), "2.8.4");
}

TEST(NcclDtypeSupport, Fp8RunsOnSm90WithNccl224) {
  EXPECT_EQ(nccl_dtype_unsupported(DType::Float8e4m3, kH100With228), "");
  EXPECT_EQ(nccl_dtype_unsupported(DType::Float8e5m2, {22400, 22400, 100}), "");
}

TEST(NcclDtypeSupport, OtherTypesNeedNothing) {
  for (DType t : {DType::Int8, DType::BFloat16, DType::Float64})
    EXPECT_EQ(nccl_dtype_unsupported(t, {21900, 21900, 70}), "");
}

TEST(NcclDtypeSupport, Fp8ReasonsNameTheMissingPiece) {
  const std::string old_gpu = nccl_dtype_unsupported(DType::Float8e4m3, {22809, 22809, 80});
  EXPECT_NE(old_gpu.find("compute capability 9.0"), std::string::npos) << old_gpu;
  EXPECT_NE(old_gpu.find("this GPU is 8.0"), std::string::npos) << old_gpu;
  const std::string old_lib = nccl_dtype_unsupported(DType::Float8e5m2, {22809, 22305, 90});
  EXPECT_NE(old_lib.find("float8e5m2 needs NCCL 2.24 or newer; the loaded NCCL is 2.23.5"), std::string::npos)
      << old_lib;
  const std::string old_header = nccl_dtype_unsupported(DType::Float8e4m3, {22304, 22809, 90});
  EXPECT_NE(old_header.find("built against NCCL 2.23.4"), std::string::npos) << old_header;
  EXPECT_NE(old_header.find("rebuild"), std::string::npos) << old_header;
}

}  // namespace
}  // namespace cctune::nccl_detail
