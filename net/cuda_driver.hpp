#pragma once
// The CUDA driver API subset the probe's GPU buffers need, resolved from libcuda.so.1
// with dlopen at run time: cctune never links CUDA, so it runs where there is no driver.
// The declarations are our own; values and exported names (the _v2 entry points) were
// checked against CUDA 13's cuda.h.
#include <cstddef>
#include <memory>
#include <string>

namespace cctune::net::cuda {

using Result = int;                    // CUresult; 0 is CUDA_SUCCESS
using Device = int;                    // CUdevice
using DevicePtr = unsigned long long;  // CUdeviceptr (64-bit since the _v2 API)
using Context = struct ContextOpaque*; // CUcontext

inline constexpr Result success = 0;
inline constexpr int attribute_dma_buf_supported = 124;  // CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED
inline constexpr int range_handle_dma_buf_fd = 1;        // CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD

// What dlopen is asked for: $CCTUNE_CUDA_DRIVER_LIB when set (a test hook to force the
// missing-library path), else libcuda.so.1 (the driver's soname; the toolkit's
// libcuda.so is a link-time stub that cannot run anything).
std::string default_driver_library();

class Driver {
 public:
  // dlopen + every symbol below + cuInit(0). Throws EnvironmentError naming the library
  // when it is missing or too old, or naming cuInit's error (no GPU, driver not loaded).
  static std::shared_ptr<const Driver> load(const std::string& library = default_driver_library());

  Driver(const Driver&) = delete;
  Driver& operator=(const Driver&) = delete;

  // "cuMemAlloc_v2 failed: out of memory (CUDA error 2)"; throws RuntimeFailure on error.
  void check(Result r, const char* call) const;
  std::string describe(Result r) const;
  const std::string& library() const { return library_; }

  Result (*init)(unsigned flags) = nullptr;
  Result (*get_error_string)(Result, const char**) = nullptr;
  Result (*device_get_count)(int*) = nullptr;
  Result (*device_get)(Device*, int ordinal) = nullptr;
  Result (*device_get_by_pci_bus_id)(Device*, const char*) = nullptr;
  Result (*device_get_pci_bus_id)(char*, int len, Device) = nullptr;
  Result (*device_get_name)(char*, int len, Device) = nullptr;
  Result (*device_get_attribute)(int*, int attribute, Device) = nullptr;
  Result (*primary_ctx_retain)(Context*, Device) = nullptr;
  Result (*primary_ctx_release)(Device) = nullptr;  // cuDevicePrimaryCtxRelease_v2
  Result (*ctx_set_current)(Context) = nullptr;
  Result (*mem_alloc)(DevicePtr*, std::size_t) = nullptr;  // cuMemAlloc_v2
  Result (*mem_free)(DevicePtr) = nullptr;                 // cuMemFree_v2
  Result (*memset_d8)(DevicePtr, unsigned char, std::size_t) = nullptr;           // cuMemsetD8_v2
  Result (*memcpy_htod)(DevicePtr, const void*, std::size_t) = nullptr;           // cuMemcpyHtoD_v2
  Result (*memcpy_dtoh)(void*, DevicePtr, std::size_t) = nullptr;                 // cuMemcpyDtoH_v2
  Result (*get_handle_for_address_range)(void* handle, DevicePtr, std::size_t, int type,
                                         unsigned long long flags) = nullptr;  // CUDA >= 11.7

 private:
  Driver() = default;
  std::string library_;
};

}  // namespace cctune::net::cuda
