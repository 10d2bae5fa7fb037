#pragma once
// Local user-buffer registration (ncclCommRegister / ncclCommDeregister, NCCL >= 2.19): what
// nccl-tests' -R 1 does to its buffers and what PyTorch's allocator hook
// (TORCH_NCCL_USE_TENSOR_REGISTER_ALLOCATOR_HOOK=1) does to every memory segment. Registering
// only records the buffer with the communicator; NCCL's transports then use it in place of
// their own staging copies where they can (IPC over NVLink/PCIe, NVLS, the network, CollNet).
// The calls are found in the loaded libnccl at run time, as the native p2p calls are: the
// module must load, and say why, with an NCCL that lacks them.
#include <nccl.h>

#include <cstddef>

#include "collectives/nccl/cuda_resources.hpp"

namespace cctune::nccl_detail {

struct RegisterCalls {
  using RegisterFn = ncclResult_t (*)(ncclComm_t, void*, size_t, void**);
  using DeregisterFn = ncclResult_t (*)(ncclComm_t, void*);
  RegisterFn register_buffer = nullptr;
  DeregisterFn deregister_buffer = nullptr;
};

// Both calls from the loaded NCCL; throws EnvironmentError naming its version where it lacks them.
RegisterCalls find_register_calls(int nccl_version_code);

// One registered buffer. Deregistered before it is released: the owner declares it after the
// buffer (so it is destroyed first), and the communicator outlives both. On a communicator
// marked failed nothing is deregistered: ncclCommAbort releases every registration itself, and
// deregistration asks the peers' proxies, which may be gone.
class BufferRegistration {
 public:
  BufferRegistration() = default;
  // Throws RuntimeFailure naming the call, `what` and NCCL's result string when NCCL refuses,
  // and when it returns no handle (NCCL_LOCAL_REGISTER=0: NCCL then ignores registrations).
  BufferRegistration(const NcclComm& comm, const RegisterCalls& calls, void* buffer, std::size_t bytes, const char* what);
  BufferRegistration(BufferRegistration&& o) noexcept;
  BufferRegistration& operator=(BufferRegistration&& o) noexcept;
  BufferRegistration(const BufferRegistration&) = delete;
  BufferRegistration& operator=(const BufferRegistration&) = delete;
  ~BufferRegistration() { release(); }

 private:
  void release() noexcept;
  const NcclComm* comm_ = nullptr;
  RegisterCalls::DeregisterFn deregister_ = nullptr;
  void* handle_ = nullptr;
};

}  // namespace cctune::nccl_detail
