// The CUDA driver loader and the GPU buffer owners without a GPU: the missing-library and
// too-old-library errors, and a fake libcuda (fake_libcuda.cpp, host memory and memfd
// "dma-bufs") for alignment, dma-buf export, the GPU choice fallback and cleanup.
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <vector>

#include "core/error.hpp"
#include "net/cuda_driver.hpp"
#include "net/gpu_buffer.hpp"

namespace cctune::net {
namespace {

// Sets an environment variable for one test and restores it after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    ::setenv(name, value, 1);
  }
  ~ScopedEnv() { had_ ? (void)::setenv(name_, old_.c_str(), 1) : (void)::unsetenv(name_); }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

int fake_counter(const char* name) {
  void* lib = dlopen(CCTUNE_FAKE_CUDA, RTLD_NOW | RTLD_NOLOAD);
  if (!lib) return -1;
  auto* fn = reinterpret_cast<int (*)()>(dlsym(lib, name));
  const int v = fn ? fn() : -1;
  dlclose(lib);
  return v;
}

TEST(CudaDriver, MissingLibraryIsEnvironmentErrorNamingIt) {
  // The hook makes this deterministic on machines that do have libcuda.so.1.
  ScopedEnv env("CCTUNE_CUDA_DRIVER_LIB", "libcuda-cctune-test-absent.so.1");
  EXPECT_EQ(cuda::default_driver_library(), "libcuda-cctune-test-absent.so.1");
  try {
    (void)cuda::Driver::load();
    FAIL() << "expected EnvironmentError";
  } catch (const EnvironmentError& e) {
    EXPECT_NE(e.what_only().find("libcuda-cctune-test-absent.so.1"), std::string::npos) << e.what_only();
    EXPECT_NE(e.fix().find("libcuda.so.1"), std::string::npos) << e.fix();
    EXPECT_NE(e.fix().find("--gpu-buffers"), std::string::npos) << e.fix();
  }
}

TEST(CudaDriver, DefaultIsTheDriverSoname) {
  const char* old = std::getenv("CCTUNE_CUDA_DRIVER_LIB");
  if (old) GTEST_SKIP() << "CCTUNE_CUDA_DRIVER_LIB is set in this environment";
  EXPECT_EQ(cuda::default_driver_library(), "libcuda.so.1");
}

TEST(CudaDriver, LibraryWithoutTheDriverApiSaysTooOld) {
  try {
    (void)cuda::Driver::load("libm.so.6");
    FAIL() << "expected EnvironmentError";
  } catch (const EnvironmentError& e) {
    EXPECT_NE(e.what_only().find("libm.so.6 has no cuInit"), std::string::npos) << e.what_only();
  }
}

TEST(CudaDriver, InitFailureNamesTheCudaError) {
  ScopedEnv env("FAKE_CUDA_INIT_ERROR", "100");
  try {
    (void)cuda::Driver::load(CCTUNE_FAKE_CUDA);
    FAIL() << "expected EnvironmentError";
  } catch (const EnvironmentError& e) {
    EXPECT_NE(e.what_only().find("cuInit failed: no CUDA-capable device is detected (CUDA error 100)"),
              std::string::npos)
        << e.what_only();
  }
}

TEST(GpuBuffer, PageAlignedExportedZeroedAndReleased) {
  auto driver = cuda::Driver::load(CCTUNE_FAKE_CUDA);
  int fd = -1;
  {
    auto ctx = std::make_shared<const gpu::GpuContext>(driver, "", 0);
    EXPECT_EQ(fake_counter("fake_cuda_live_contexts"), 1);
    ctx->require_dmabuf();
    gpu::GpuBuffer buf(ctx, 5000);
    EXPECT_EQ(buf.size(), gpu::GpuBuffer::page_bytes);
    EXPECT_EQ(buf.address() % gpu::GpuBuffer::page_bytes, 0u);
    fd = buf.dmabuf_fd();
    ASSERT_GE(fd, 0);
    EXPECT_GE(::lseek(fd, 0, SEEK_END), static_cast<off_t>(buf.size()));
    std::vector<unsigned char> zero(buf.size(), 1);
    buf.copy_to_host(0, zero.data(), zero.size());
    EXPECT_EQ(zero, std::vector<unsigned char>(buf.size(), 0));
    const std::vector<unsigned char> pattern = {1, 2, 3, 4, 250};
    buf.copy_from_host(100, pattern.data(), pattern.size());
    std::vector<unsigned char> back(pattern.size());
    buf.copy_to_host(100, back.data(), back.size());
    EXPECT_EQ(back, pattern);
    EXPECT_THROW(buf.copy_to_host(buf.size() - 2, back.data(), back.size()), RuntimeFailure);
    gpu::GpuBuffer moved(std::move(buf));
    EXPECT_EQ(moved.dmabuf_fd(), fd);
    EXPECT_EQ(buf.dmabuf_fd(), -1);
    EXPECT_EQ(fake_counter("fake_cuda_live_allocations"), 1);
  }
  EXPECT_EQ(fake_counter("fake_cuda_live_allocations"), 0);
  EXPECT_EQ(fake_counter("fake_cuda_live_contexts"), 0);
  EXPECT_EQ(::fcntl(fd, F_GETFD), -1);  // the dma-buf fd was closed
}

TEST(GpuBuffer, GpuByBusIdElseLocalIndexModuloCount) {
  auto driver = cuda::Driver::load(CCTUNE_FAKE_CUDA);
  EXPECT_EQ(gpu::GpuContext(driver, "0000:11:00.0", 0).ordinal(), 1);
  EXPECT_EQ(gpu::GpuContext(driver, "0000:ff:00.0", 3).ordinal(), 1);  // unknown bus id: 3 mod 2
  EXPECT_EQ(gpu::GpuContext(driver, "", 4).ordinal(), 0);
  const gpu::GpuContext c(driver, "", 1);
  EXPECT_EQ(c.label(), "GPU 1 (Fake GPU 1, 0000:11:00.0)");
  EXPECT_EQ(gpu::buffer_label(c), "gpu:1:dmabuf");
}

TEST(GpuBuffer, NoDmabufSupportNamesTheGpuAndTheRequirement) {
  ScopedEnv env("FAKE_CUDA_DMABUF", "0");
  auto driver = cuda::Driver::load(CCTUNE_FAKE_CUDA);
  const gpu::GpuContext c(driver, "", 1);
  try {
    c.require_dmabuf();
    FAIL() << "expected EnvironmentError";
  } catch (const EnvironmentError& e) {
    EXPECT_NE(e.what_only().find("GPU 1 (Fake GPU 1"), std::string::npos) << e.what_only();
    EXPECT_NE(e.fix().find("Linux >= 5.12"), std::string::npos) << e.fix();
    EXPECT_NE(e.fix().find("open GPU kernel module"), std::string::npos) << e.fix();
  }
  // Export refused at allocation time too: an EnvironmentError, and nothing leaks.
  auto ctx = std::make_shared<const gpu::GpuContext>(driver, "", 0);
  EXPECT_THROW(gpu::GpuBuffer(ctx, 1), EnvironmentError);
  EXPECT_EQ(fake_counter("fake_cuda_live_allocations"), 0);
}

TEST(GpuBuffer, NoDeviceIsEnvironmentError) {
  ScopedEnv env("FAKE_CUDA_DEVICES", "0");
  auto driver = cuda::Driver::load(CCTUNE_FAKE_CUDA);
  EXPECT_THROW(gpu::GpuContext(driver, "", 0), EnvironmentError);
}

}  // namespace
}  // namespace cctune::net
