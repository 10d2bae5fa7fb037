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

// Device memory (cudaMalloc) or pinned host memory (cudaMallocHost).
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
    if (bytes > 0) CCTUNE_CUDA_CHECK(cudaMalloc(&ptr_, bytes));
  }
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      reset();
      ptr_ = std::exchange(o.ptr_, nullptr);
      bytes_ = std::exchange(o.bytes_, 0);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { reset(); }

  void reset() noexcept {
    if (ptr_) (void)cudaFree(ptr_);
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

class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t bytes) : bytes_(bytes) {
    if (bytes > 0) CCTUNE_CUDA_CHECK(cudaMallocHost(&ptr_, bytes));
  }
  PinnedBuffer(PinnedBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept {
    if (this != &o) {
      if (ptr_) (void)cudaFreeHost(ptr_);
      ptr_ = std::exchange(o.ptr_, nullptr);
      bytes_ = std::exchange(o.bytes_, 0);
    }
    return *this;
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  ~PinnedBuffer() {
    if (ptr_) (void)cudaFreeHost(ptr_);
  }
  void* get() const noexcept { return ptr_; }
  std::size_t bytes() const noexcept { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

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
