#pragma once
// Move-only owners of CUDA and NCCL handles. Destructors never throw: a failing release is
// ignored (the process is usually about to report an error or exit anyway).
#include <cuda_runtime.h>
#include <nccl.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

#include "collectives/nccl/cuda_check.hpp"

namespace cctune::nccl_detail {

struct StreamDeleter {
  void operator()(CUstream_st* s) const noexcept { (void)cudaStreamDestroy(s); }
};
using CudaStream = std::unique_ptr<CUstream_st, StreamDeleter>;

inline CudaStream make_stream() {
  cudaStream_t s = nullptr;
  CCTUNE_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  return CudaStream(s);
}

struct EventDeleter {
  void operator()(CUevent_st* e) const noexcept { (void)cudaEventDestroy(e); }
};
using CudaEvent = std::unique_ptr<CUevent_st, EventDeleter>;

inline CudaEvent make_event() {
  cudaEvent_t e = nullptr;
  CCTUNE_CUDA_CHECK(cudaEventCreate(&e));  // timing enabled: per-iteration times
  return CudaEvent(e);
}

struct GraphExecDeleter {
  void operator()(CUgraphExec_st* g) const noexcept { (void)cudaGraphExecDestroy(g); }
};
using CudaGraphExec = std::unique_ptr<CUgraphExec_st, GraphExecDeleter>;

struct GraphDeleter {
  void operator()(CUgraph_st* g) const noexcept { (void)cudaGraphDestroy(g); }
};
using CudaGraph = std::unique_ptr<CUgraph_st, GraphDeleter>;

// The allocators CudaMemory is made of; `name` is what an error message calls the call.
struct DeviceAllocator {
  static constexpr const char* name = "cudaMalloc";
  static cudaError_t alloc(void** p, std::size_t bytes) { return cudaMalloc(p, bytes); }
  static cudaError_t free(void* p) { return cudaFree(p); }
};
struct PinnedHostAllocator {
  static constexpr const char* name = "cudaMallocHost";
  static cudaError_t alloc(void** p, std::size_t bytes) { return cudaMallocHost(p, bytes); }
  static cudaError_t free(void* p) { return cudaFreeHost(p); }
};

// Memory from one CUDA allocator: device memory or pinned host memory.
template <class Allocator>
class CudaMemory {
 public:
  CudaMemory() = default;
  explicit CudaMemory(std::size_t bytes) : bytes_(bytes) {
    if (bytes > 0) check_cuda(Allocator::alloc(&ptr_, bytes), Allocator::name, __FILE__, __LINE__);
  }
  CudaMemory(CudaMemory&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  CudaMemory& operator=(CudaMemory&& o) noexcept {
    if (this != &o) {
      reset();
      ptr_ = std::exchange(o.ptr_, nullptr);
      bytes_ = std::exchange(o.bytes_, 0);
    }
    return *this;
  }
  CudaMemory(const CudaMemory&) = delete;
  CudaMemory& operator=(const CudaMemory&) = delete;
  ~CudaMemory() { reset(); }

  void reset() noexcept {
    if (ptr_) (void)Allocator::free(ptr_);
    ptr_ = nullptr;
    bytes_ = 0;
  }
  void* get() const noexcept { return ptr_; }
  std::size_t bytes() const noexcept { return bytes_; }
  template <class T>
  T* as() const noexcept { return static_cast<T*>(ptr_); }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

using DeviceBuffer = CudaMemory<DeviceAllocator>;
using PinnedBuffer = CudaMemory<PinnedHostAllocator>;

// An NCCL communicator. Destroyed normally (ncclCommDestroy) unless an error was seen on
// it, in which case it is aborted (ncclCommAbort never waits for peers that may be gone).
class NcclComm {
 public:
  NcclComm() = default;
  explicit NcclComm(ncclComm_t comm) : comm_(comm) {}
  NcclComm(NcclComm&& o) noexcept : comm_(std::exchange(o.comm_, nullptr)), failed_(o.failed_) {}
  NcclComm& operator=(NcclComm&& o) noexcept {
    if (this != &o) {
      release();
      comm_ = std::exchange(o.comm_, nullptr);
      failed_ = o.failed_;
    }
    return *this;
  }
  NcclComm(const NcclComm&) = delete;
  NcclComm& operator=(const NcclComm&) = delete;
  ~NcclComm() { release(); }

  ncclComm_t get() const noexcept { return comm_; }
  void mark_failed() noexcept { failed_ = true; }
  bool failed() const noexcept { return failed_; }

 private:
  void release() noexcept {
    if (!comm_) return;
    if (failed_)
      (void)ncclCommAbort(comm_);
    else
      (void)ncclCommDestroy(comm_);
    comm_ = nullptr;
  }
  ncclComm_t comm_ = nullptr;
  bool failed_ = false;
};

}  // namespace cctune::nccl_detail
