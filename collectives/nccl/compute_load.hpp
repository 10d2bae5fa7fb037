#pragma once
// `--overlap` (docs/TUNING.md "Collectives beside compute"): a compute load on a second
// stream of the worker's GPU for the whole timed batch, as a DDP/FSDP step runs its GEMMs
// beside the gradient all-reduce. The load is a hand-written tiled SGEMM (each block one
// 64x64 tile of C = A x B, K deep, from L2-resident inputs: compute-bound), launched again and
// again so that the stream never drains while the batch runs; one launch is one wave that
// fills every SM (multiProcessorCount x the kernel's occupancy). Not cuBLAS: the module links
// only cudart statically and runs where the driver and libnccl alone are installed; cuBLAS
// would add a ~0.5 GB run-time library to every GPU node.
//
// Throughput: each launch is followed by an event; the launches that complete inside the
// collective's window (the per-operation batch's first and last events) give the time of
// one launch under load, against the same launches alone (measure_solo, per point).
#include <cuda_runtime.h>

#include <vector>

#include "collectives/nccl/cuda_resources.hpp"

namespace cctune::nccl_detail {

class ComputeLoad {
 public:
  explicit ComputeLoad(int device);
  ~ComputeLoad();  // waits for the stream
  ComputeLoad(const ComputeLoad&) = delete;
  ComputeLoad& operator=(const ComputeLoad&) = delete;

  // Time of one launch alone (median spacing of 24 back-to-back launches, after 4 unmeasured).
  double measure_solo();
  double solo_us() const { return solo_us_; }
  // Enqueues launches for at least 2 x `expect_us` of solo compute (bounded: kMaxLaunches).
  void start(double expect_us);
  // Ends the load (a flag every later launch reads first and returns on) and waits for it.
  // With the window's events (complete, on the collective's stream): the slowdown, the
  // launch time under load / solo_us; 0 where fewer than 3 launches completed inside.
  double finish(cudaEvent_t window_from = nullptr, cudaEvent_t window_to = nullptr);
  int blocks() const { return blocks_; }

 private:
  void launch_one();
  CudaStream stream_;
  DeviceBuffer a_, b_, c_;
  PinnedBuffer stop_;  // mapped (UVA): every block reads it first
  int* stop_device_ = nullptr;
  std::vector<CudaEvent> done_;  // one per launch enqueued by start()
  int launched_ = 0;
  int blocks_ = 0;
  double solo_us_ = 0;
};

inline constexpr int kComputeLoadMaxLaunches = 400;

}  // namespace cctune::nccl_detail
