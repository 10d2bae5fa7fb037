#pragma once
// GPU memory for the ibverbs probe (GPUDirect RDMA through dma-buf): a GPU's primary
// context, and device memory exported as a dma-buf file descriptor that
// ibv_reg_dmabuf_mr registers with the NIC. Move-only owners; destructors never throw.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "net/cuda_driver.hpp"

namespace cctune::net::gpu {

// One GPU's primary context, retained while this lives and made current on the thread
// that creates it (the probe runs on one thread).
class GpuContext {
 public:
  // `pci_bus_id` when non-empty and visible to CUDA ("0000:1b:00.0"), else the GPU of
  // ordinal fallback_index % device count. Throws EnvironmentError when there is no GPU.
  GpuContext(std::shared_ptr<const cuda::Driver> driver, const std::string& pci_bus_id, int fallback_index);
  GpuContext(const GpuContext&) = delete;
  GpuContext& operator=(const GpuContext&) = delete;
  ~GpuContext();

  // Throws EnvironmentError naming the GPU when it cannot export dma-buf.
  void require_dmabuf() const;
  void make_current() const;                 // throws RuntimeFailure
  cuda::Result set_current() const noexcept;  // for destructors

  const cuda::Driver& driver() const { return *driver_; }
  int ordinal() const { return ordinal_; }
  const std::string& name() const { return name_; }
  const std::string& pci_bus_id() const { return pci_bus_id_; }
  std::string label() const;  // "GPU 3 (NVIDIA H100 80GB HBM3, 0000:1b:00.0)"

 private:
  std::shared_ptr<const cuda::Driver> driver_;
  cuda::Device device_ = 0;
  int ordinal_ = 0;
  cuda::Context context_ = nullptr;
  std::string name_, pci_bus_id_;
};

// Device memory for RDMA. dma-buf export wants an address and a length aligned to the
// host page; we align both to the GPU's 64 KiB page, which covers any host page size
// Linux uses on x86 and arm64 (4 KiB .. 64 KiB), by over-allocating one page.
class GpuBuffer {
 public:
  static constexpr std::size_t page_bytes = 64 << 10;

  // Allocates at least `bytes` (rounded up to the page), zeroes them and exports the
  // range as a dma-buf fd. Throws RuntimeFailure / EnvironmentError with the CUDA error.
  GpuBuffer(std::shared_ptr<const GpuContext> context, std::size_t bytes);
  GpuBuffer(GpuBuffer&& o) noexcept;
  GpuBuffer& operator=(GpuBuffer&& o) noexcept;
  GpuBuffer(const GpuBuffer&) = delete;
  GpuBuffer& operator=(const GpuBuffer&) = delete;
  ~GpuBuffer();

  std::uint64_t address() const { return address_; }  // page-aligned device pointer
  std::size_t size() const { return size_; }          // a multiple of page_bytes
  int dmabuf_fd() const { return fd_; }               // owned; closed on destruction
  const GpuContext& context() const { return *context_; }

  // Synchronous copies for checks; `offset + bytes` must lie within size().
  void copy_from_host(std::size_t offset, const void* src, std::size_t bytes) const;
  void copy_to_host(std::size_t offset, void* dst, std::size_t bytes) const;

 private:
  void release() noexcept;

  std::shared_ptr<const GpuContext> context_;
  cuda::DevicePtr allocation_ = 0;  // what cuMemAlloc returned (freed)
  std::uint64_t address_ = 0;       // allocation_ rounded up to the page
  std::size_t size_ = 0;
  int fd_ = -1;
};

// "gpu:<ordinal>:dmabuf", as the probe JSON records the memory of an endpoint.
std::string buffer_label(const GpuContext& context);

}  // namespace cctune::net::gpu
