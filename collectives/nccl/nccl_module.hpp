#pragma once
// The interface between the `cctune __worker` process and libcctune-nccl.so, the only
// code that touches CUDA and NCCL. The worker dlopen's the module (so the cctune
// executable starts on machines without CUDA or NCCL), calls cctune_nccl_module_create()
// and drives everything through NcclModule. No CUDA or NCCL header appears here.
// docs/NCCL_BACKEND.md describes the two halves and how a worker uses them.
#include <cstdint>
#include <memory>
#include <string>

#include "collectives/backend.hpp"
#include "comm/rank_comm.hpp"

namespace cctune {

struct NcclWorkerSetup {
  int nranks = 1, rank = 0, device = 0;  // NCCL rank and CUDA device index
  std::string unique_id_hex;             // ncclUniqueId as hex (128 bytes -> 256 hex chars)
  bool graph = false;                    // CUDA-graph mode: capture k ops, time replays
  std::uint64_t max_send_bytes = 0, max_recv_bytes = 0;  // allocate once for the largest point
  // ncclCommRegister the send and receive buffers (local user-buffer registration, as
  // nccl-tests -R 1 and PyTorch's allocator hook): the worker's TORCH_NCCL_USE_TENSOR_REGISTER_
  // ALLOCATOR_HOOK=1 (core/nccl_settings.hpp). A failing registration fails the worker.
  bool register_buffers = false;
  // `--overlap`: a compute load beside every timed batch (collectives/nccl/compute_load.hpp).
  bool overlap = false;
};

class NcclModule {  // one per worker process
 public:
  virtual ~NcclModule() = default;
  virtual int device_count() = 0;           // cudaGetDeviceCount; throws EnvironmentError with reason
  virtual std::string nccl_version() = 0;   // "2.28.3" from ncclGetVersion
  virtual std::string cuda_versions() = 0;  // "runtime 13.0, driver 13.0"
  virtual std::string new_unique_id_hex() = 0;
  // "0000:18:00.0" from cudaDeviceGetPCIBusId, for the hello message.
  virtual std::string pci_bus_id(int device) = 0;
  // cudaSetDevice + buffers (refuses sizes that do not fit: EnvironmentError naming the size
  // and the free memory, before measuring) + ncclCommInitRankConfig. Returns the backend;
  // comm() then gives the workers' RankComm, implemented over NCCL itself on a separate
  // stream (allreduce of doubles on a small device buffer), off the timed path.
  // Call once per process; the backend must be destroyed before the module.
  virtual std::unique_ptr<CollectiveBackend> create_backend(const NcclWorkerSetup& setup) = 0;
  virtual RankComm& comm() = 0;  // valid after create_backend; throws RuntimeFailure before
};

// Name of the factory symbol, for dlsym.
inline constexpr const char* nccl_module_create_symbol = "cctune_nccl_module_create";
using NcclModuleCreateFn = NcclModule* (*)();

}  // namespace cctune

extern "C" cctune::NcclModule* cctune_nccl_module_create();  // new'd; caller owns
