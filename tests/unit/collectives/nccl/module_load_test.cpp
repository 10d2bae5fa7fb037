// libcctune-nccl.so as the worker uses it: dlopen, the factory, and, on a machine without a
// GPU, a clean EnvironmentError (caught across the library boundary) rather than a crash.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <memory>

#include "collectives/nccl/nccl_module.hpp"
#include "core/error.hpp"

namespace cctune {
namespace {

struct Closer {
  void operator()(void* h) const { dlclose(h); }
};

TEST(NcclModule, LoadsAndReportsVersionsOrAMissingGpuCleanly) {
  std::unique_ptr<void, Closer> handle(dlopen(CCTUNE_NCCL_MODULE, RTLD_NOW | RTLD_LOCAL));
  ASSERT_TRUE(handle) << dlerror();
  auto create = reinterpret_cast<NcclModuleCreateFn>(dlsym(handle.get(), nccl_module_create_symbol));
  ASSERT_NE(create, nullptr) << dlerror();
  std::unique_ptr<NcclModule> module(create());
  ASSERT_TRUE(module);
  EXPECT_TRUE(module->nccl_version().starts_with("2.")) << module->nccl_version();
  EXPECT_THROW(module->comm(), RuntimeFailure);
  bool have_gpu = false;
  try {
    have_gpu = module->device_count() > 0;
  } catch (const EnvironmentError& e) {
    EXPECT_NE(e.describe().find("CUDA"), std::string::npos) << e.describe();
  }
  if (have_gpu) {
    EXPECT_EQ(module->new_unique_id_hex().size(), 256u);
    EXPECT_NE(module->cuda_versions().find("runtime"), std::string::npos);
  } else {
    NcclWorkerSetup setup;
    setup.unique_id_hex = std::string(256, '0');
    EXPECT_THROW(module->create_backend(setup), EnvironmentError);
  }
  module.reset();  // before dlclose
}

}  // namespace
}  // namespace cctune
