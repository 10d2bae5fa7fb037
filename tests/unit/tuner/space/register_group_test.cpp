// Buffer registration as a sweep axis (issue 35, item 2): a group may set the one non-NCCL_
// variable cctune's workers honour, TORCH_NCCL_USE_TENSOR_REGISTER_ALLOCATOR_HOOK, to "1" or
// "0"; any other TORCH_* variable or value is refused in one line naming the key. The default
// space measures register-local against NCCL's defaults over RDMA networks.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "support/thrown.hpp"
#include "tuner/space/plan.hpp"
#include "tuner/space/space.hpp"

namespace cctune::tuner {
namespace {

const std::string kSpaces = std::string(CCTUNE_SOURCE_DIR) + "/configs/spaces";
const std::string kBad = std::string(CCTUNE_SOURCE_DIR) + "/tests/fixtures/tuning/bad_spaces/";
const std::string kHook = "TORCH_NCCL_USE_TENSOR_REGISTER_ALLOCATOR_HOOK";

std::string space_with_env(const std::string& key, const std::string& value) {
  return R"({"name": "x", "collectives": ["allreduce"], "sizes": {"min": "8", "max": "1M"}, "algorithms": ["auto"],
             "protocols": ["auto"], "groups": [{"name": "g", "env": {")" +
         key + R"(": ")" + value + R"("}}]})";
}

TEST(RegisterGroup, SpaceAcceptsTheSwitchWithOneOrZero) {
  for (const char* value : {"1", "0"}) {
    const SearchSpace s = parse_space(space_with_env(kHook, value), "s.json");
    ASSERT_EQ(s.groups.size(), 1u);
    EXPECT_EQ(s.groups[0].env.at(kHook), value);
  }
}

TEST(RegisterGroup, OtherTorchVariablesAndValuesAreRefusedNamingTheKey) {
  std::string m = cctune::testing::thrown_description<UsageError>([] { load_space(kBad + "group_env_other_torch.json", {}); });
  EXPECT_NE(m.find("group_env_other_torch.json: key \"groups[0].env.TORCH_NCCL_BLOCKING_WAIT\": is not an NCCL setting"), std::string::npos)
      << m;
  EXPECT_NE(m.find(kHook), std::string::npos) << m;  // the allowed list names the one exception
  m = cctune::testing::thrown_description<UsageError>([] { load_space(kBad + "group_env_register_on.json", {}); });
  EXPECT_NE(m.find("key \"groups[0].env." + kHook + "\": is \"on\", not a value PyTorch reads as on"), std::string::npos) << m;
  for (const char* value : {"TRUE", "2", "on", ""}) {
    m = cctune::testing::thrown_description<UsageError>([&] { parse_space(space_with_env(kHook, value), "s.json"); });
    EXPECT_NE(m.find("groups[0].env." + kHook), std::string::npos) << value << ": " << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
  // PyTorch's own spellings are the same setting to it and to cctune's workers.
  EXPECT_NO_THROW(parse_space(space_with_env(kHook, "true"), "s.json"));
  m = cctune::testing::thrown_description<UsageError>(
      [&] { parse_space(space_with_env("TORCH_NCCL_USE_TENSOR_REGISTER_ALLOCATOR_HOOK_X", "1"), "s.json"); });
  EXPECT_NE(m.find("is not an NCCL setting"), std::string::npos) << m;
}

// With cudaMalloc'd memory (cctune's buffers, PyTorch's default allocator) NCCL 2.28 uses a
// registration only over RDMA networks by default: the group runs there and nowhere else.
TEST(RegisterGroup, DefaultSpaceMeasuresRegisterLocalOverRdmaOnly) {
  const SearchSpace space = load_space("default", {kSpaces});
  const GroupSpec* reg = nullptr;
  for (const GroupSpec& g : space.groups)
    if (g.name == "register-local") reg = &g;
  ASSERT_NE(reg, nullptr);
  EXPECT_EQ(reg->env, (std::map<std::string, std::string>{{kHook, "1"}}));
  EXPECT_EQ(reg->requires_, (std::vector<GroupRequirement>{GroupRequirement::Net, GroupRequirement::Rdma}));
  EXPECT_NE(reg->description.find("NCCL_LOCAL_REGISTER"), std::string::npos) << reg->description;
  const auto planned = [&](int nnodes, std::vector<std::string> nics, bool sockets) {
    SpaceContext ctx;
    ctx.nranks = 4;
    ctx.nnodes = nnodes;
    ctx.nearest_nics = std::move(nics);
    ctx.caller_forces_socket = sockets;
    for (const PlannedGroup& g : plan_space(space, ctx).groups)
      if (g.name == "register-local") return g;
    ADD_FAILURE() << "no register-local in the plan";
    return PlannedGroup{};
  };
  const PlannedGroup rdma = planned(2, {"mlx5_0"}, false);
  EXPECT_TRUE(rdma.skip_reason.empty()) << rdma.skip_reason;
  EXPECT_FALSE(rdma.points.empty());
  EXPECT_EQ(rdma.env.at(kHook), "1");
  EXPECT_NE(planned(1, {"mlx5_0"}, false).skip_reason, "");  // one NVLink node: NCCL would copy as before
  EXPECT_NE(planned(2, {"mlx5_0"}, true).skip_reason, "");   // sockets take host memory only
  EXPECT_NE(planned(2, {}, false).skip_reason, "");
}

}  // namespace
}  // namespace cctune::tuner
