// bench/profiler_floor.cpp, the overhead bench's floor: loaded as NCCL loads a profiler, it must
// ask for exactly the API events the profiler half asks for on an unfollowed call when switched
// on, nothing when off, and refuse words the plugin's switch refuses.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include "workload/profiler/nccl_profiler_abi.hpp"

namespace {

namespace abi = cctune::nccl_abi;
using Switch = int (*)(const char*);

TEST(ProfilerFloor, SwitchesTheApiEventsOnAndOff) {
  void* lib = dlopen(CCTUNE_PROFILER_FLOOR_SO, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << dlerror();
  const auto* v5 = static_cast<const abi::ProfilerV5*>(dlsym(lib, "ncclProfiler_v5"));
  const auto events = reinterpret_cast<Switch>(dlsym(lib, "cctune_profiler_events"));
  ASSERT_NE(v5, nullptr);
  ASSERT_NE(events, nullptr);
  EXPECT_EQ(events("timing"), 1);  // no communicator yet: nothing to switch

  int mask = -1;
  void* context = nullptr;
  ASSERT_EQ(v5->init(&context, 0x1234, &mask, "c", 1, 2, 0, nullptr), abi::kSuccess);
  EXPECT_NE(context, nullptr);
  EXPECT_EQ(mask, 0);
  EXPECT_EQ(events("timing"), 0);
  EXPECT_EQ(mask, abi::kProfileGroupApi | abi::kProfileCollApi | abi::kProfileP2pApi);
  EXPECT_EQ(events("off"), 0);
  EXPECT_EQ(mask, 0);
  EXPECT_EQ(events("calls"), 0);
  EXPECT_EQ(mask, abi::kProfileGroupApi | abi::kProfileCollApi | abi::kProfileP2pApi);
  EXPECT_EQ(events("everything"), -1);
  EXPECT_EQ(events(nullptr), -1);

  abi::ProfilerEventDescrV5 d{};
  d.type = abi::kProfileCollApi;
  void* handle = &mask;
  EXPECT_EQ(v5->start_event(context, &handle, &d), abi::kSuccess);
  EXPECT_EQ(handle, nullptr);  // no handle: NCCL then sends no stop
  EXPECT_EQ(v5->finalize(context), abi::kSuccess);
  dlclose(lib);
}

}  // namespace
