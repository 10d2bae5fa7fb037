// libcctune-nccl.so's entry point: the NcclModule the worker drives (nccl_module.hpp).
#include "collectives/nccl/nccl_module.hpp"

#include <cuda_runtime.h>
#include <nccl.h>

#include <cstdio>
#include <cstring>

#include "collectives/nccl/cuda_check.hpp"
#include "collectives/nccl/nccl_backend.hpp"
#include "collectives/nccl/nccl_context.hpp"
#include "collectives/nccl/nccl_rank_comm.hpp"

namespace cctune::nccl_detail {
namespace {

std::string version_string(int v) {  // CUDA's 13000 -> "13.0"
  return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

std::string to_hex(const ncclUniqueId& id) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * sizeof id.internal);
  for (char c : id.internal) {
    const auto b = static_cast<unsigned char>(c);
    hex += digits[b >> 4];
    hex += digits[b & 15];
  }
  return hex;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

ncclUniqueId from_hex(const std::string& hex) {
  ncclUniqueId id{};
  if (hex.size() != 2 * sizeof id.internal)
    throw RuntimeFailure("NCCL unique id has " + std::to_string(hex.size()) + " hex digits, expected " +
                         std::to_string(2 * sizeof id.internal));
  for (std::size_t i = 0; i < sizeof id.internal; ++i) {
    const int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) throw RuntimeFailure("NCCL unique id is not hexadecimal");
    id.internal[i] = static_cast<char>(hi * 16 + lo);
  }
  return id;
}

NcclDtypeSupport dtype_support(int device) {
  NcclDtypeSupport s;
  s.header_version = NCCL_VERSION_CODE;
  CCTUNE_NCCL_CHECK(ncclGetVersion(&s.library_version), nullptr);
  int major = 0, minor = 0;
  CCTUNE_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  CCTUNE_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  s.compute_capability = major * 10 + minor;
  return s;
}

class NcclModuleImpl final : public NcclModule {
 public:
  int device_count() override {
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess)
      throw EnvironmentError(std::string("no usable CUDA device: cudaGetDeviceCount failed: ") + cudaGetErrorName(err) +
                                 " (" + cudaGetErrorString(err) + ")",
                             "check that nvidia-smi lists the GPUs, the driver is loaded, and CUDA_VISIBLE_DEVICES");
    if (count == 0)
      throw EnvironmentError("no CUDA device is visible", "check nvidia-smi and CUDA_VISIBLE_DEVICES");
    return count;
  }

  std::string nccl_version() override {
    int v = 0;
    CCTUNE_NCCL_CHECK(ncclGetVersion(&v), nullptr);
    // NCCL >= 2.9 encodes major*10000 + minor*100 + patch.
    return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
  }

  std::string cuda_versions() override {
    int runtime = 0, driver = 0;
    CCTUNE_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
    CCTUNE_CUDA_CHECK(cudaDriverGetVersion(&driver));
    // cudaDriverGetVersion reports 0 where no driver is installed.
    return "runtime " + version_string(runtime) + ", driver " + (driver > 0 ? version_string(driver) : "not found");
  }

  std::string new_unique_id_hex() override {
    ncclUniqueId id{};
    CCTUNE_NCCL_CHECK(ncclGetUniqueId(&id), nullptr);
    return to_hex(id);
  }

  std::string pci_bus_id(int device) override {
    char bus_id[64] = {};
    CCTUNE_CUDA_CHECK(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, device));
    return bus_id;
  }

  std::unique_ptr<CollectiveBackend> create_backend(const NcclWorkerSetup& setup) override {
    if (ctx_) throw RuntimeFailure("NcclModule::create_backend called twice in one worker");
    if (setup.nranks < 1 || setup.rank < 0 || setup.rank >= setup.nranks)
      throw RuntimeFailure("bad NCCL worker setup: rank " + std::to_string(setup.rank) + " of " +
                           std::to_string(setup.nranks));
    const int count = device_count();
    if (setup.device < 0 || setup.device >= count)
      throw EnvironmentError("CUDA device " + std::to_string(setup.device) + " does not exist (" +
                                 std::to_string(count) + " visible)",
                             "check --gpus and CUDA_VISIBLE_DEVICES");
    const ncclUniqueId id = from_hex(setup.unique_id_hex);
    CCTUNE_CUDA_CHECK(cudaSetDevice(setup.device));

    auto ctx = std::make_shared<NcclContext>();
    ctx->device = setup.device;
    ctx->rank = setup.rank;
    ctx->nranks = setup.nranks;
    ctx->dtypes = dtype_support(setup.device);
    ctx->stream = make_stream();
    ctx->ctl_stream = make_stream();
    // A size that does not fit is refused before NCCL allocates anything; the buffers
    // themselves come after the communicator, as in nccl-tests (since NCCL 2.19), because
    // where they land moves copy-bound times: on one H100 a 16 MiB one-rank allreduce took
    // 8.9 or 9.2 us depending only on the allocation order and buffer size.
    check_buffers_fit(setup.device, setup.max_send_bytes, setup.max_recv_bytes);

    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    ncclComm_t comm = nullptr;
    const ncclResult_t res = ncclCommInitRankConfig(&comm, setup.nranks, id, setup.rank, &config);
    if (res != ncclSuccess) {
      NcclComm failed(comm);
      failed.mark_failed();
      CCTUNE_NCCL_CHECK(res, comm);
    }
    ctx->comm = NcclComm(comm);
    std::unique_ptr<NcclBackend> backend;
    try {
      backend = std::make_unique<NcclBackend>(ctx, setup.graph, setup.max_send_bytes, setup.max_recv_bytes, setup.register_buffers,
                                              setup.overlap);
    } catch (...) {
      ctx->comm.mark_failed();  // abort, not destroy: the peers may be waiting in the first barrier
      throw;
    }
    auto rank_comm = std::make_unique<NcclRankComm>(ctx);
    rank_comm->barrier();  // connects the control path now, not during the first point
    ctx_ = std::move(ctx);
    comm_ = std::move(rank_comm);
    return backend;
  }

  RankComm& comm() override {
    if (!comm_) throw RuntimeFailure("NcclModule::comm() before create_backend()");
    return *comm_;
  }

 private:
  std::shared_ptr<NcclContext> ctx_;
  std::unique_ptr<NcclRankComm> comm_;
};

}  // namespace
}  // namespace cctune::nccl_detail

extern "C" __attribute__((visibility("default"))) cctune::NcclModule* cctune_nccl_module_create() {
  try {
    return new cctune::nccl_detail::NcclModuleImpl();
  } catch (...) {
    return nullptr;
  }
}
