#include "net/ib_handles.hpp"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>
#include <utility>

#include "core/error.hpp"

namespace cctune::net::ib {

DeviceList get_device_list(int& count) {
  count = 0;
  DeviceList list(ibv_get_device_list(&count));
  if (!list) count = 0;  // no ibverbs provider or no device: treated as none
  return list;
}

HostBuffer::HostBuffer(std::size_t bytes, int numa_node) : size_(bytes) {
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw EnvironmentError("cannot allocate " + std::to_string(bytes) + " bytes for RDMA buffers");
  data_ = p;
  if (numa_node >= 0 && numa_node < 1024) {
    // mbind(MPOL_PREFERRED) before the first touch places the pages on the NIC's node;
    // a raw syscall keeps libnuma out of the dependencies.
    unsigned long mask[1024 / (8 * sizeof(unsigned long))] = {};
    mask[numa_node / (8 * sizeof(unsigned long))] = 1UL << (numa_node % (8 * sizeof(unsigned long)));
    constexpr int mpol_preferred = 1;
    numa_bound_ = ::syscall(SYS_mbind, p, bytes, mpol_preferred, mask, 1024UL, 0U) == 0;
  }
  std::memset(p, 0, bytes);
}

HostBuffer::HostBuffer(HostBuffer&& o) noexcept
    : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)), numa_bound_(o.numa_bound_) {}

HostBuffer& HostBuffer::operator=(HostBuffer&& o) noexcept {
  if (this != &o) {
    if (data_) ::munmap(data_, size_);
    data_ = std::exchange(o.data_, nullptr);
    size_ = std::exchange(o.size_, 0);
    numa_bound_ = o.numa_bound_;
  }
  return *this;
}

HostBuffer::~HostBuffer() {
  if (data_) ::munmap(data_, size_);
}

}  // namespace cctune::net::ib
