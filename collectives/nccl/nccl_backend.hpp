#pragma once
// NCCL collectives timed as nccl-tests times them, plus the device-side data check.
//  - wall batch: after a stream sync, host wall time around n back-to-back launches and the
//    final stream sync, nothing else inside (the engine divides by n).
//  - per-operation batch: CUDA events recorded between the launches (device_batch.hpp).
//  - CUDA-graph mode: n operations run as n/k replays of a graph of k captured operations;
//    per-iteration times are event time around each replay divided by k.
// Buffers are allocated once for the largest point (the worker passes it at creation).
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "collectives/backend.hpp"
#include "collectives/nccl/buffer_registration.hpp"
#include "collectives/nccl/compute_load.hpp"
#include "collectives/nccl/cuda_resources.hpp"
#include "collectives/nccl/data_kernels.hpp"
#include "collectives/nccl/nccl_context.hpp"
#include "collectives/nccl/nccl_layouts.hpp"
#include "collectives/nccl/nccl_native.hpp"

namespace cctune::nccl_detail {

// GPU memory kept free beyond our buffers, for NCCL's own buffers and CUDA graphs.
inline constexpr std::uint64_t kNcclHeadroomBytes = 1ull << 30;

// Throws EnvironmentError naming the sizes and the free memory when the buffers cannot fit.
void check_buffers_fit(int device, std::uint64_t send_bytes, std::uint64_t recv_bytes);

// Operations per graph in CUDA-graph mode for a batch of n: the largest divisor k of n that
// still leaves at least min(n, 5) replays (n = 20 -> 5 replays of 4 operations).
int graph_ops_per_replay(int n);

class NcclBackend final : public CollectiveBackend {
 public:
  // Allocates the buffers after the communicator exists (the module checked first that they
  // fit) and, with `register_buffers`, registers them with it (ncclCommRegister), again
  // whenever they grow; deregistered before they are freed.
  NcclBackend(std::shared_ptr<NcclContext> ctx, bool graph, std::uint64_t send_bytes, std::uint64_t recv_bytes,
              bool register_buffers = false, bool overlap = false);
  ~NcclBackend() override;

  std::string name() const override { return "nccl"; }
  std::string unsupported_reason(const PointSpec& spec) const override;
  void prepare(const PointSpec& spec) override;
  BatchTiming run_batch(const BatchRequest& batch) override;
  long count_wrong() override;
  PointConfig chosen() const override;
  std::optional<P2pImpl> implementation() const override { return impl_; }

 private:
  struct Placement {
    void* send = nullptr;
    void* recv = nullptr;
  };
  // One NCCL call as launch() issues it: a point's, or one call of a replayed step's.
  struct Call {
    PointSpec spec;
    Placement where;
    std::optional<P2pImpl> impl;
    int repeats = 1;
    int group = -1;  // StepCall::group
  };
  void* address(const Span& span) const;
  void ensure_capacity(std::uint64_t send_bytes, std::uint64_t recv_bytes);
  void register_buffers();
  void ensure_events(std::size_t count);
  void fill_input(const PointSpec& spec, const NcclLayout& layout, int magnitude, cudaStream_t s);
  void launch(cudaStream_t stream);
  void launch_call(const Call& c, cudaStream_t stream);
  void launch_point_to_point(const Call& c, ncclComm_t comm, cudaStream_t stream);
  void launch_native(const Call& c, ncclComm_t comm, cudaStream_t stream);
  // What `spec` runs as here: its request, or grouped where native is absent and it may fall back.
  std::optional<P2pImpl> runs_as(const PointSpec& spec) const;
  class Steps;
  cudaGraphExec_t graph_for(int k);
  CheckSpec check_spec() const;

  std::shared_ptr<NcclContext> ctx_;
  bool graph_;
  DeviceBuffer send_;
  DeviceBuffer recv_;
  std::optional<RegisterCalls> register_calls_;     // set: register the two buffers above
  std::vector<BufferRegistration> registrations_;  // after the buffers: deregistered before they are freed
  DeviceBuffer wrong_counter_;
  PinnedBuffer wrong_host_;
  std::vector<CudaEvent> events_;
  std::optional<PointSpec> spec_;
  NcclLayout layout_;
  DataCheckPlan check_plan_;
  std::vector<Call> calls_;  // what one operation issues, in order (a step: several)
  NativeP2pCalls native_;        // found in the loaded libnccl at construction
  std::optional<P2pImpl> impl_;  // of the prepared point
  std::map<int, CudaGraphExec> graphs_;  // per ops-per-replay, for the prepared point
  std::unique_ptr<ComputeLoad> load_;    // `--overlap`: beside every batch
  double load_us_per_op_ = 0;            // the prepared point's last batch, for the load's length
};

}  // namespace cctune::nccl_detail
