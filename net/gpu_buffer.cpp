#include "net/gpu_buffer.hpp"

#include <unistd.h>

#include <utility>

#include "core/error.hpp"

namespace cctune::net::gpu {

namespace {

const char* const dmabuf_fix =
    "dma-buf export of GPU memory needs Linux >= 5.12 and the NVIDIA open GPU kernel module (driver >= 515); "
    "nvidia-peermem is not needed. Or drop --gpu-buffers";

}  // namespace

GpuContext::GpuContext(std::shared_ptr<const cuda::Driver> driver, const std::string& pci_bus_id, int fallback_index)
    : driver_(std::move(driver)) {
  const auto& d = *driver_;
  int count = 0;
  d.check(d.device_get_count(&count), "cuDeviceGetCount");
  if (count < 1)
    throw EnvironmentError("--gpu-buffers: CUDA sees no GPU", "check nvidia-smi and CUDA_VISIBLE_DEVICES");
  // A bus id CUDA does not know (hidden by CUDA_VISIBLE_DEVICES) falls back to the index.
  bool found = !pci_bus_id.empty() && d.device_get_by_pci_bus_id(&device_, pci_bus_id.c_str()) == cuda::success;
  if (!found) d.check(d.device_get(&device_, fallback_index % count), "cuDeviceGet");
  // CUdevice is the ordinal in every driver we know; look it up rather than rely on that.
  ordinal_ = device_;
  for (int i = 0; i < count; ++i) {
    cuda::Device dev = 0;
    if (d.device_get(&dev, i) == cuda::success && dev == device_) ordinal_ = i;
  }
  char buf[128] = {};
  if (d.device_get_name(buf, sizeof buf, device_) == cuda::success) name_ = buf;
  char bus[32] = {};
  if (d.device_get_pci_bus_id(bus, sizeof bus, device_) == cuda::success) pci_bus_id_ = bus;
  d.check(d.primary_ctx_retain(&context_, device_), "cuDevicePrimaryCtxRetain");
  try {
    make_current();
  } catch (...) {
    (void)d.primary_ctx_release(device_);
    throw;
  }
}

GpuContext::~GpuContext() {
  if (!context_) return;
  // Not current any more once released: later driver calls on this thread must not
  // find a context that may be gone.
  (void)driver_->ctx_set_current(nullptr);
  (void)driver_->primary_ctx_release(device_);
}

cuda::Result GpuContext::set_current() const noexcept { return driver_->ctx_set_current(context_); }

void GpuContext::make_current() const { driver_->check(set_current(), "cuCtxSetCurrent"); }

std::string GpuContext::label() const {
  return "GPU " + std::to_string(ordinal_) + " (" + (name_.empty() ? "?" : name_) + ", " +
         (pci_bus_id_.empty() ? "?" : pci_bus_id_) + ")";
}

void GpuContext::require_dmabuf() const {
  int supported = 0;
  driver_->check(driver_->device_get_attribute(&supported, cuda::attribute_dma_buf_supported, device_),
                 "cuDeviceGetAttribute(DMA_BUF_SUPPORTED)");
  if (!supported)
    throw EnvironmentError("--gpu-buffers: " + label() + " cannot export its memory as dma-buf", dmabuf_fix);
}

GpuBuffer::GpuBuffer(std::shared_ptr<const GpuContext> context, std::size_t bytes) : context_(std::move(context)) {
  const auto& d = context_->driver();
  context_->make_current();
  size_ = (bytes + page_bytes - 1) / page_bytes * page_bytes;
  if (size_ == 0) size_ = page_bytes;
  // cuMemAlloc aligns to far less than a page for small sizes: take one page more and
  // export the aligned part.
  d.check(d.mem_alloc(&allocation_, size_ + page_bytes), "cuMemAlloc_v2");
  address_ = (allocation_ + page_bytes - 1) / page_bytes * page_bytes;
  try {
    d.check(d.memset_d8(address_, 0, size_), "cuMemsetD8_v2");
    int fd = -1;
    if (const auto r = d.get_handle_for_address_range(&fd, address_, size_, cuda::range_handle_dma_buf_fd, 0);
        r != cuda::success)
      throw EnvironmentError("--gpu-buffers: cuMemGetHandleForAddressRange (dma-buf) of " + std::to_string(size_) +
                                 " bytes on " + context_->label() + " failed: " + d.describe(r),
                             dmabuf_fix);
    fd_ = fd;
  } catch (...) {
    release();
    throw;
  }
}

GpuBuffer::GpuBuffer(GpuBuffer&& o) noexcept
    : context_(std::move(o.context_)),
      allocation_(std::exchange(o.allocation_, 0)),
      address_(std::exchange(o.address_, 0)),
      size_(std::exchange(o.size_, 0)),
      fd_(std::exchange(o.fd_, -1)) {}

GpuBuffer& GpuBuffer::operator=(GpuBuffer&& o) noexcept {
  if (this != &o) {
    release();
    context_ = std::move(o.context_);
    allocation_ = std::exchange(o.allocation_, 0);
    address_ = std::exchange(o.address_, 0);
    size_ = std::exchange(o.size_, 0);
    fd_ = std::exchange(o.fd_, -1);
  }
  return *this;
}

GpuBuffer::~GpuBuffer() { release(); }

void GpuBuffer::release() noexcept {
  // The fd first: the exporter keeps the pages pinned while an importer (the MR, which
  // its owner deregisters before us) or the fd still refers to them.
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (allocation_ && context_) {
    // cuMemFree acts on the current context: ours, whatever the caller did since.
    (void)context_->set_current();
    (void)context_->driver().mem_free(allocation_);
  }
  allocation_ = 0;
  address_ = 0;
  size_ = 0;
}

void GpuBuffer::copy_from_host(std::size_t offset, const void* src, std::size_t bytes) const {
  if (offset + bytes > size_) throw RuntimeFailure("GpuBuffer::copy_from_host out of range");
  context_->make_current();
  context_->driver().check(context_->driver().memcpy_htod(address_ + offset, src, bytes), "cuMemcpyHtoD_v2");
}

void GpuBuffer::copy_to_host(std::size_t offset, void* dst, std::size_t bytes) const {
  if (offset + bytes > size_) throw RuntimeFailure("GpuBuffer::copy_to_host out of range");
  context_->make_current();
  context_->driver().check(context_->driver().memcpy_dtoh(dst, address_ + offset, bytes), "cuMemcpyDtoH_v2");
}

std::string buffer_label(const GpuContext& context) { return "gpu:" + std::to_string(context.ordinal()) + ":dmabuf"; }

}  // namespace cctune::net::gpu
