// Which variables are NCCL settings to cctune, and the worker's decision to register its
// buffers (issue 35: buffer registration as a sweep axis). No GPU: the worker's decision is a
// function of one environment value.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/nccl_settings.hpp"

namespace cctune {
namespace {

TEST(NcclSettings, NcclVariablesAndTheOneRegistrationSwitch) {
  EXPECT_TRUE(is_nccl_setting_name("NCCL_BUFFSIZE"));
  EXPECT_TRUE(is_nccl_setting_name("TORCH_NCCL_USE_TENSOR_REGISTER_ALLOCATOR_HOOK"));
  for (const char* other : {"TORCH_NCCL_BLOCKING_WAIT", "TORCH_NCCL_USE_TENSOR_REGISTER_ALLOCATOR_HOOKS", "TORCH_NCCL_", "NCCL",
                            "CUDA_VISIBLE_DEVICES", "nccl_buffsize", ""})
    EXPECT_FALSE(is_nccl_setting_name(other)) << other;
}

// The worker reads the variable as PyTorch does, so a job's environment means the same to both.
TEST(NcclSettings, WorkerReadsTheValuesPyTorchReads) {
  EXPECT_FALSE(register_buffers_requested(std::nullopt));  // unset: PyTorch's default, off
  for (const char* on : {"1", "y", "yes", "t", "true"}) EXPECT_TRUE(register_buffers_requested(std::string_view(on))) << on;
  for (const char* off : {"0", "n", "no", "f", "false"}) EXPECT_FALSE(register_buffers_requested(std::string_view(off))) << off;
}

TEST(NcclSettings, AnyOtherValueIsAOneLineErrorNamingTheVariable) {
  for (const char* bad : {"on", "", " 1", "2", "yes ", "1\nNCCL_ALGO=ring"}) {
    try {
      register_buffers_requested(std::string_view(bad));
      ADD_FAILURE() << "accepted \"" << bad << "\"";
    } catch (const UsageError& e) {
      const std::string m = e.describe();
      EXPECT_NE(m.find("TORCH_NCCL_USE_TENSOR_REGISTER_ALLOCATOR_HOOK="), std::string::npos) << m;
      EXPECT_NE(e.fix().find("1 or 0"), std::string::npos) << e.fix();
      EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    }
  }
  EXPECT_EQ(parse_register_setting("1"), std::optional<bool>(true));
  EXPECT_EQ(parse_register_setting("0"), std::optional<bool>(false));
  EXPECT_EQ(parse_register_setting("on"), std::nullopt);
}

}  // namespace
}  // namespace cctune
