// The in-process path of a sweep worker: this executable links cctune_tuner_plugin like the
// cctune executable does (ENABLE_EXPORTS), finds ncclTunerPlugin_v5 in itself the way NCCL
// does for NCCL_TUNER_PLUGIN=STATIC_PLUGIN (dlopen(NULL) + dlsym), calls it through cctune's
// declared v5 struct, and steers it through SweepControl::instance().
#include <dlfcn.h>
#include <gtest/gtest.h>

#include "capture_logger.hpp"
#include "fake_cost_table.hpp"
#include "tuner/plugin/nccl_tuner_abi.hpp"
#include "tuner/plugin/sweep_control.hpp"

namespace cctune::tuner {
namespace {

using testing::FakeCostTable;

const nccl_abi::TunerV5* find_static_plugin() {
  void* self = dlopen(nullptr, RTLD_NOW | RTLD_LOCAL);
  if (!self) return nullptr;
  return static_cast<const nccl_abi::TunerV5*>(dlsym(self, "ncclTunerPlugin_v5"));
}

class StaticPlugin : public ::testing::Test {
 protected:
  void SetUp() override {
    unsetenv("CCTUNE_PROFILE");
    plugin_ = find_static_plugin();
    ASSERT_NE(plugin_, nullptr) << "ncclTunerPlugin_v5 is not exported by the executable: " << dlerror();
    ASSERT_EQ(plugin_->init(&context_, 42, 8, 1, testing::capture_logger, &nvl_, &constants_), nccl_abi::kSuccess);
  }
  void TearDown() override {
    SweepControl::instance().set_off();
    if (plugin_) {
      EXPECT_EQ(plugin_->finalize(context_), nccl_abi::kSuccess);
    }
  }
  int get(FakeCostTable& t, int func, std::size_t bytes, int* channels) {
    return plugin_->get_coll_info(context_, func, bytes, 1, t.as_nccl_passes_it(), testing::kAlgos, testing::kProtos, 0,
                                  channels);
  }

  const nccl_abi::TunerV5* plugin_ = nullptr;
  void* context_ = nullptr;
  nccl_abi::NvlDomainInfoV5 nvl_{1, 8, 8};
  nccl_abi::TunerConstantsV5 constants_{};
};

TEST_F(StaticPlugin, IsCalledCctune) { EXPECT_STREQ(plugin_->name, "cctune"); }

TEST_F(StaticPlugin, ForcedChoiceReachesTheCostTable) {
  SweepControl::instance().set_forced({Algorithm::Ring, Protocol::Simple, 32});
  FakeCostTable t;
  int channels = 0;
  EXPECT_EQ(get(t, nccl_abi::kFuncAllReduce, 1 << 20, &channels), nccl_abi::kSuccess);
  EXPECT_EQ(t.at(1, 2), 0.0f);
  EXPECT_EQ(channels, 32);
  EXPECT_TRUE(SweepControl::instance().forced_report().applicable());
}

TEST_F(StaticPlugin, UnsupportedForcedChoiceMarksThePointSkipped) {
  SweepControl::instance().set_forced({Algorithm::CollnetDirect, Protocol::Simple, 0});
  FakeCostTable t;
  const FakeCostTable before;
  int channels = 0;
  EXPECT_EQ(get(t, nccl_abi::kFuncAllReduce, 1 << 20, &channels), nccl_abi::kSuccess);
  EXPECT_TRUE(t.equals(before));
  const ForcedReport r = SweepControl::instance().forced_report();
  EXPECT_FALSE(r.applicable());
  EXPECT_NE(r.reason.find("collnet_direct/simple"), std::string::npos) << r.reason;
}

TEST_F(StaticPlugin, ObserveReportsWhatNcclPicked) {
  SweepControl::instance().set_observe();
  FakeCostTable t;
  const FakeCostTable before;
  int channels = 0;
  get(t, nccl_abi::kFuncAllGather, 8 << 20, &channels);
  EXPECT_TRUE(t.equals(before));
  auto o = SweepControl::instance().last_observation();
  ASSERT_TRUE(o);
  EXPECT_EQ(o->collective, Collective::AllGather);
  EXPECT_EQ(o->n_bytes, 8u << 20);
  EXPECT_EQ(o->algorithm, Algorithm::Ring);
  EXPECT_EQ(o->protocol, Protocol::LL);
}

TEST_F(StaticPlugin, WithoutSweepOrProfileNothingChangesAndNothingIsLogged) {
  FakeCostTable t;
  const FakeCostTable before;
  int channels = 0;
  get(t, nccl_abi::kFuncAllReduce, 1 << 20, &channels);
  EXPECT_TRUE(t.equals(before));
  EXPECT_EQ(channels, 0);
  EXPECT_TRUE(testing::captured_log().empty()) << testing::all_lines();
}

}  // namespace
}  // namespace cctune::tuner
