// Buffer registration as a sweep axis (issue 35, item 2): a group may set the one non-NCCL_
// variable cctune's workers honour, TORCH_NCCL_USE_TENSOR_REGISTER_ALLOCATOR_HOOK, to "1" or
// "0"; any other TORCH_* variable or value is refused in one line naming the key. The default
// space measures register-local against NCCL's defaults wherever it runs.
#include <gtest/gtest.h>

#include "core/error.hpp"
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

std::string usage_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.describe();
  }
  return "<no UsageError>";
}

TEST(RegisterGroup, SpaceAcceptsTheSwitchWithOneOrZero) {
  for (const char* value : {"1", "0"}) {
    const SearchSpace s = parse_space(space_with_env(kHook, value), "s.json");
    ASSERT_EQ(s.groups.size(), 1u);
    EXPECT_EQ(s.groups[0].env.at(kHook), value);
  }
}

TEST(RegisterGroup, OtherTorchVariablesAndValuesAreRefusedNamingTheKey) {
  std::string m = usage_error([] { load_space(kBad + "group_env_other_torch.json", {}); });
  EXPECT_NE(m.find("group_env_other_torch.json: key \"groups[0].env.TORCH_NCCL_BLOCKING_WAIT\": is not an NCCL setting"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find(kHook), std::string::npos) << m;  // the allowed list names the one exception
  m = usage_error([] { load_space(kBad + "group_env_register_yes.json", {}); });
  EXPECT_NE(m.find("key \"groups[0].env." + kHook + "\": value \"yes\" is neither \"1\""), std::string::npos) << m;
  for (const char* value : {"true", "2", "on"}) {
    m = usage_error([&] { parse_space(space_with_env(kHook, value), "s.json"); });
    EXPECT_NE(m.find("groups[0].env." + kHook), std::string::npos) << value << ": " << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
  m = usage_error([&] { parse_space(space_with_env("TORCH_NCCL_USE_TENSOR_REGISTER_ALLOCATOR_HOOK_X", "1"), "s.json"); });
  EXPECT_NE(m.find("is not an NCCL setting"), std::string::npos) << m;
}

// No `requires`: registration concerns NVLink/PCIe peers, NVLS, the network and CollNet alike,
// so the group runs on one NVLink node as across nodes (and says nothing where it cannot help).
TEST(RegisterGroup, DefaultSpaceMeasuresRegisterLocalEverywhere) {
  const SearchSpace space = load_space("default", {kSpaces});
  const GroupSpec* reg = nullptr;
  for (const GroupSpec& g : space.groups)
    if (g.name == "register-local") reg = &g;
  ASSERT_NE(reg, nullptr);
  EXPECT_EQ(reg->env, (std::map<std::string, std::string>{{kHook, "1"}}));
  EXPECT_TRUE(reg->requires_.empty());
  EXPECT_NE(reg->description.find("NCCL_LOCAL_REGISTER"), std::string::npos) << reg->description;
  for (const auto& [nranks, nnodes] : {std::pair{4, 1}, {4, 2}}) {
    SpaceContext ctx;
    ctx.nranks = nranks;
    ctx.nnodes = nnodes;
    const SpacePlan plan = plan_space(space, ctx);
    for (const PlannedGroup& g : plan.groups)
      if (g.name == "register-local") {
        EXPECT_TRUE(g.skip_reason.empty()) << g.skip_reason;
        EXPECT_FALSE(g.points.empty());
        EXPECT_EQ(g.env.at(kHook), "1");
      }
  }
}

}  // namespace
}  // namespace cctune::tuner
