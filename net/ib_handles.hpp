#pragma once
// Move-only owners of ibverbs objects. Destruction order is the reverse of creation
// (QP, MR, CQ, PD, context) when members are declared in creation order; the deleters
// ignore errors because destructors must not throw.
#include <infiniband/verbs.h>

#include <cstddef>
#include <memory>

namespace cctune::net::ib {

template <class T, auto Release>
struct Releaser {
  void operator()(T* p) const noexcept {
    if (p) (void)Release(p);
  }
};

using DeviceList = std::unique_ptr<ibv_device*, Releaser<ibv_device*, ibv_free_device_list>>;
using Context = std::unique_ptr<ibv_context, Releaser<ibv_context, ibv_close_device>>;
using ProtectionDomain = std::unique_ptr<ibv_pd, Releaser<ibv_pd, ibv_dealloc_pd>>;
using CompletionQueue = std::unique_ptr<ibv_cq, Releaser<ibv_cq, ibv_destroy_cq>>;
using QueuePair = std::unique_ptr<ibv_qp, Releaser<ibv_qp, ibv_destroy_qp>>;
using MemoryRegion = std::unique_ptr<ibv_mr, Releaser<ibv_mr, ibv_dereg_mr>>;

// ibv_get_device_list; an empty list (never null) when there is no RDMA device.
DeviceList get_device_list(int& count);

// Page-aligned host memory preferring one NUMA node (the NIC's); munmap on destruction.
class HostBuffer {
 public:
  HostBuffer() = default;
  HostBuffer(std::size_t bytes, int numa_node);
  HostBuffer(HostBuffer&& o) noexcept;
  HostBuffer& operator=(HostBuffer&& o) noexcept;
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
  ~HostBuffer();
  void* data() const { return data_; }
  std::size_t size() const { return size_; }
  bool numa_bound() const { return numa_bound_; }

 private:
  void* data_ = nullptr;
  std::size_t size_ = 0;
  bool numa_bound_ = false;
};

}  // namespace cctune::net::ib
