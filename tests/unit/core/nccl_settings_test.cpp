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

// The one rule every path from a file into an environment applies (review R1): a profile's env,
// a results file's group env, --env-group and a space file's groups.
TEST(NcclSettings, DeployableSettingsAreNcclSettingsNcclEnvCanCarry) {
  EXPECT_EQ(deployable_setting_problem("NCCL_SOCKET_NTHREADS", "4"), std::nullopt);
  EXPECT_EQ(deployable_setting_problem("NCCL_IB_HCA", "=mlx5_0:1,mlx5_1:1"), std::nullopt);
  EXPECT_EQ(deployable_setting_problem("TORCH_NCCL_USE_TENSOR_REGISTER_ALLOCATOR_HOOK", "1"), std::nullopt);
  const std::pair<const char*, const char*> refused[] = {
      {"LD_PRELOAD", "not an NCCL setting"},
      {"BASH_ENV", "not an NCCL setting"},
      {"CCTUNE_WORKLOAD_STEPS", "not an NCCL setting"},
      {"NCCL_TUNER_PLUGIN", "set by cctune itself"},
      {"NCCL_PROFILER_PLUGIN", "names a library"},
      {"NCCL_NET_PLUGIN", "names a library"},
      {"NCCL_DEBUG_FILE", "names a library NCCL loads or a file"},
      {"NCCL_CONF_FILE", "a file it reads or writes"},
  };
  for (const auto& [key, what] : refused) {
    const auto p = deployable_setting_problem(key, "/tmp/x");
    ASSERT_TRUE(p) << key;
    EXPECT_NE(p->what.find(what), std::string::npos) << key << ": " << p->what;
  }
  for (const char* value : {"", "a b", "$(id)", "x\ny", "`id`", "a;b"}) {
    const auto p = deployable_setting_problem("NCCL_SOCKET_IFNAME", value);
    ASSERT_TRUE(p) << value;
    EXPECT_NE(p->what.find("nccl.env cannot carry"), std::string::npos) << p->what;
    EXPECT_EQ(p->what.find('\n'), std::string::npos) << p->what;
  }
}

}  // namespace
}  // namespace cctune
