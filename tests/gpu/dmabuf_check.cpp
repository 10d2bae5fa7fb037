// The probe's GPU buffer module on a real GPU (tests/gpu/dmabuf_gpu_check.sh runs it):
// for every GPU, allocate through net/gpu_buffer, export the dma-buf fd, check the fd
// and its size, write and read back a pattern, free, and check that nothing leaks.
//   dmabuf_check [BYTES]     (default 4 MiB + 123, to exercise the page rounding)
// Exit 0: all good; 1: a check failed; 3: the environment lacks something (no driver,
// no GPU); 77: a GPU cannot export dma-buf (the message says what it needs).
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "net/cuda_driver.hpp"
#include "net/gpu_buffer.hpp"

namespace {

using cctune::net::gpu::GpuBuffer;
using cctune::net::gpu::GpuContext;

int open_fds() {
  int n = 0;
  if (DIR* d = opendir("/proc/self/fd")) {
    while (readdir(d)) ++n;
    closedir(d);
  }
  return n;
}

bool check(bool ok, const std::string& what) {
  std::printf("  %s: %s\n", ok ? "ok  " : "FAIL", what.c_str());
  return ok;
}

// One GPU: returns false when a check failed.
bool check_gpu(const std::shared_ptr<const GpuContext>& ctx, std::size_t bytes) {
  std::printf("%s, %s\n", ctx->label().c_str(), cctune::net::gpu::buffer_label(*ctx).c_str());
  bool ok = true;
  int fd = -1;
  {
    GpuBuffer buf(ctx, bytes);
    fd = buf.dmabuf_fd();
    ok &= check(buf.size() >= bytes && buf.size() % GpuBuffer::page_bytes == 0,
                "size " + std::to_string(buf.size()) + " covers " + std::to_string(bytes) + " in 64 KiB pages");
    ok &= check(buf.address() % GpuBuffer::page_bytes == 0, "address is 64 KiB aligned");
    ok &= check(fd >= 0, "dma-buf fd " + std::to_string(fd));
    // dma-buf supports SEEK_END to learn the size; fstat reports it on recent kernels.
    const off_t end = ::lseek(fd, 0, SEEK_END);
    struct stat st {};
    const bool stat_ok = ::fstat(fd, &st) == 0;
    if (end >= 0)
      ok &= check(end >= static_cast<off_t>(buf.size()), "lseek(SEEK_END) gives " + std::to_string(end));
    else
      std::printf("  note: lseek on the dma-buf fd is not supported here\n");
    if (stat_ok && st.st_size > 0)
      ok &= check(st.st_size >= static_cast<off_t>(buf.size()), "fstat size " + std::to_string(st.st_size));
    ok &= check(end >= 0 || (stat_ok && st.st_size > 0), "the dma-buf size is visible (lseek or fstat)");

    std::vector<unsigned char> zeros(buf.size(), 0xff), pattern(buf.size()), back(buf.size());
    buf.copy_to_host(0, zeros.data(), zeros.size());
    ok &= check(zeros == std::vector<unsigned char>(buf.size(), 0), "the buffer starts zeroed");
    for (std::size_t i = 0; i < pattern.size(); ++i) pattern[i] = static_cast<unsigned char>((i * 131 + 7) >> 3);
    buf.copy_from_host(0, pattern.data(), pattern.size());
    buf.copy_to_host(0, back.data(), back.size());
    ok &= check(back == pattern, "pattern written with cuMemcpyHtoD reads back with cuMemcpyDtoH");
  }
  ok &= check(::fcntl(fd, F_GETFD) == -1, "the dma-buf fd is closed with the buffer");

  const int fds_before = open_fds();
  for (int i = 0; i < 20; ++i) GpuBuffer churn(ctx, bytes);
  ok &= check(open_fds() == fds_before, "20 more allocate/export/free cycles leave no fd behind");
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t bytes = argc > 1 ? std::strtoull(argv[1], nullptr, 0) : (4u << 20) + 123;
  try {
    const auto driver = cctune::net::cuda::Driver::load();
    int count = 0;
    driver->check(driver->device_get_count(&count), "cuDeviceGetCount");
    std::printf("%s: %d GPU(s)\n", driver->library().c_str(), count);
    bool ok = count > 0;
    for (int i = 0; i < count; ++i) {
      auto ctx = std::make_shared<const GpuContext>(driver, "", i);
      try {
        ctx->require_dmabuf();
      } catch (const cctune::EnvironmentError& e) {
        std::printf("%s\n", e.describe().c_str());
        return 77;
      }
      ok &= check_gpu(ctx, bytes);
    }
    std::printf("%s\n", ok ? "dmabuf_check: PASS" : "dmabuf_check: FAIL");
    return ok ? 0 : 1;
  } catch (const cctune::EnvironmentError& e) {
    std::fprintf(stderr, "dmabuf_check: error: %s\n", e.describe().c_str());
    return 3;
  } catch (const cctune::Error& e) {
    std::fprintf(stderr, "dmabuf_check: error: %s\n", e.describe().c_str());
    return 1;
  }
}
