#include "net/cuda_driver.hpp"

#include <dlfcn.h>

#include <cstdlib>

#include "core/error.hpp"

namespace cctune::net::cuda {

namespace {

// Resolves `name` into `fn`; records the first missing one so the error names it.
template <typename Fn>
void resolve(void* lib, const char* name, Fn& fn, std::string& missing) {
  fn = reinterpret_cast<Fn>(dlsym(lib, name));
  if (!fn && missing.empty()) missing = name;
}

}  // namespace

std::string default_driver_library() {
  const char* env = std::getenv("CCTUNE_CUDA_DRIVER_LIB");
  return env && *env ? env : "libcuda.so.1";
}

std::shared_ptr<const Driver> Driver::load(const std::string& library) {
  std::shared_ptr<Driver> d(new Driver());
  d->library_ = library;
  // Never dlclose'd once initialised: the driver keeps threads of its own that would
  // run unmapped code at exit.
  void* lib = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* why = dlerror();
    throw EnvironmentError("--gpu-buffers: cannot load the CUDA driver library " + library + " (" +
                               (why ? why : "dlopen failed") + ")",
                           "install the NVIDIA driver on every rank (libcuda.so.1 ships with the driver, not the "
                           "CUDA toolkit), or drop --gpu-buffers");
  }
  std::string missing;
  resolve(lib, "cuInit", d->init, missing);
  resolve(lib, "cuGetErrorString", d->get_error_string, missing);
  resolve(lib, "cuDeviceGetCount", d->device_get_count, missing);
  resolve(lib, "cuDeviceGet", d->device_get, missing);
  resolve(lib, "cuDeviceGetByPCIBusId", d->device_get_by_pci_bus_id, missing);
  resolve(lib, "cuDeviceGetPCIBusId", d->device_get_pci_bus_id, missing);
  resolve(lib, "cuDeviceGetName", d->device_get_name, missing);
  resolve(lib, "cuDeviceGetAttribute", d->device_get_attribute, missing);
  resolve(lib, "cuDevicePrimaryCtxRetain", d->primary_ctx_retain, missing);
  resolve(lib, "cuDevicePrimaryCtxRelease_v2", d->primary_ctx_release, missing);
  resolve(lib, "cuCtxSetCurrent", d->ctx_set_current, missing);
  resolve(lib, "cuMemAlloc_v2", d->mem_alloc, missing);
  resolve(lib, "cuMemFree_v2", d->mem_free, missing);
  resolve(lib, "cuMemsetD8_v2", d->memset_d8, missing);
  resolve(lib, "cuMemcpyHtoD_v2", d->memcpy_htod, missing);
  resolve(lib, "cuMemcpyDtoH_v2", d->memcpy_dtoh, missing);
  resolve(lib, "cuMemGetHandleForAddressRange", d->get_handle_for_address_range, missing);
  if (!missing.empty()) {
    dlclose(lib);
    throw EnvironmentError("--gpu-buffers: " + library + " has no " + missing + ": the NVIDIA driver is too old",
                           "dma-buf export needs NVIDIA driver >= 515 (CUDA 11.7); update the driver");
  }
  if (const Result r = d->init(0); r != success)
    throw EnvironmentError("--gpu-buffers: cuInit failed: " + d->describe(r),
                           "check that this rank sees a GPU (nvidia-smi, CUDA_VISIBLE_DEVICES)");
  return d;
}

std::string Driver::describe(Result r) const {
  const char* text = nullptr;
  if (get_error_string && get_error_string(r, &text) == success && text)
    return std::string(text) + " (CUDA error " + std::to_string(r) + ")";
  return "CUDA error " + std::to_string(r);
}

void Driver::check(Result r, const char* call) const {
  if (r != success) throw RuntimeFailure(std::string(call) + " failed: " + describe(r));
}

}  // namespace cctune::net::cuda
