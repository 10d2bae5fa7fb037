// A stand-in for libcuda.so.1 with the entry points net/cuda_driver.cpp resolves, backed
// by host memory and memfd "dma-bufs", so GpuContext / GpuBuffer are tested without a GPU.
// Knobs (read at call time): FAKE_CUDA_DEVICES (default 2), FAKE_CUDA_DMABUF (attribute
// value, default 1), FAKE_CUDA_INIT_ERROR (cuInit's result, default 0).
// Counters for the tests: fake_cuda_live_allocations, fake_cuda_live_contexts.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}
int live_allocations = 0;
int live_contexts = 0;
int current_device = -1;
constexpr int invalid_value = 1, invalid_device = 101, not_supported = 801;

}  // namespace

extern "C" {

int fake_cuda_live_allocations() { return live_allocations; }
int fake_cuda_live_contexts() { return live_contexts; }

int cuInit(unsigned) { return env_int("FAKE_CUDA_INIT_ERROR", 0); }
int cuGetErrorString(int r, const char** s) {
  *s = r == 100 ? "no CUDA-capable device is detected" : r == not_supported ? "operation not supported" : "fake error";
  return 0;
}
int cuDeviceGetCount(int* n) { *n = env_int("FAKE_CUDA_DEVICES", 2); return 0; }
int cuDeviceGet(int* d, int ordinal) {
  if (ordinal < 0 || ordinal >= env_int("FAKE_CUDA_DEVICES", 2)) return invalid_device;
  *d = ordinal;
  return 0;
}
// Device i lives at bus 0000:i1:00.0.
int cuDeviceGetPCIBusId(char* out, int len, int d) { std::snprintf(out, len, "0000:%d1:00.0", d); return 0; }
int cuDeviceGetByPCIBusId(int* d, const char* bus) {
  for (int i = 0; i < env_int("FAKE_CUDA_DEVICES", 2); ++i) {
    char mine[32];
    cuDeviceGetPCIBusId(mine, sizeof mine, i);
    if (strcasecmp(mine, bus) == 0) { *d = i; return 0; }
  }
  return invalid_value;
}
int cuDeviceGetName(char* out, int len, int d) { std::snprintf(out, len, "Fake GPU %d", d); return 0; }
int cuDeviceGetAttribute(int* v, int attribute, int) {
  if (attribute != 124) return invalid_value;
  *v = env_int("FAKE_CUDA_DMABUF", 1);
  return 0;
}
int cuDevicePrimaryCtxRetain(void** ctx, int d) { ++live_contexts; *ctx = reinterpret_cast<void*>(0x1000 + d); return 0; }
int cuDevicePrimaryCtxRelease_v2(int) { --live_contexts; return 0; }
int cuCtxSetCurrent(void* ctx) {
  current_device = ctx ? static_cast<int>(reinterpret_cast<long>(ctx) - 0x1000) : -1;
  return 0;
}
// Deliberately misaligned by 512 bytes, as a real small cuMemAlloc may be.
int cuMemAlloc_v2(unsigned long long* p, std::size_t n) {
  if (current_device < 0) return 201;  // CUDA_ERROR_INVALID_CONTEXT
  char* raw = static_cast<char*>(std::malloc(n + 512));
  if (!raw) return 2;
  ++live_allocations;
  *p = reinterpret_cast<unsigned long long>(raw + 512);
  return 0;
}
int cuMemFree_v2(unsigned long long p) {
  if (current_device < 0) return 201;
  std::free(reinterpret_cast<char*>(p) - 512);
  --live_allocations;
  return 0;
}
int cuMemsetD8_v2(unsigned long long p, unsigned char v, std::size_t n) { std::memset(reinterpret_cast<void*>(p), v, n); return 0; }
int cuMemcpyHtoD_v2(unsigned long long d, const void* s, std::size_t n) { std::memcpy(reinterpret_cast<void*>(d), s, n); return 0; }
int cuMemcpyDtoH_v2(void* d, unsigned long long s, std::size_t n) { std::memcpy(d, reinterpret_cast<void*>(s), n); return 0; }
int cuMemGetHandleForAddressRange(void* handle, unsigned long long p, std::size_t n, int type, unsigned long long) {
  if (type != 1) return invalid_value;
  if (p % 4096 || n % 4096) return invalid_value;  // the host page rule the real driver enforces
  if (!env_int("FAKE_CUDA_DMABUF", 1)) return not_supported;
  const int fd = memfd_create("fake-dmabuf", 0);
  if (fd < 0 || ftruncate(fd, static_cast<off_t>(n)) != 0) return 2;
  *static_cast<int*>(handle) = fd;
  return 0;
}

}  // extern "C"
