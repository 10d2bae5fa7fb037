#pragma once
// `--overlap` (docs/TUNING.md "Collectives beside compute"): a compute load on a second stream
// of the worker's GPU for the whole timed batch, as a DDP/FSDP step runs its GEMMs beside the
// gradient all-reduce. The load is cuBLAS's GEMM in BF16 with FP32 accumulation (cublasGemmEx,
// tensor cores: what those jobs' layers run), C (8192 x 8192) = A (8192 x K) x B (K x 8192):
// thousands of output tiles, so every SM is busy, as a training step's GEMMs keep it. K is sized
// to the GPU at construction so that one GEMM takes about kTargetGemmUs (an H100/H200: K near
// 4096-8192). cuBLAS is loaded at run time (cublas_calls.hpp).
//
// Measuring: an event before the first GEMM and one after each. A GEMM's duration under load
// minus its duration alone (solo_us, timed again right after each window: the clock the GPU
// runs at moves with its load) is the compute time the collective cost it; the
// GEMMs that overlap the collective's window (the per-operation batch's first and last events)
// sum to the compute time lost in that window (core/overlap_math.hpp: window_slowdown).
#include <cuda_runtime.h>

#include <memory>
#include <vector>

#include "collectives/nccl/cublas_calls.hpp"
#include "collectives/nccl/cuda_resources.hpp"

namespace cctune::nccl_detail {

inline constexpr double kTargetGemmUs = 1000;    // one GEMM's time alone: well above launch costs, below a batch
inline constexpr double kMaxQueuedLoadUs = 1e6;  // the most compute enqueued for one batch

class ComputeLoad {
 public:
  ComputeLoad();   // on the worker's current device: cuBLAS and the buffers follow it
  ~ComputeLoad();  // waits for the stream, then releases the handle
  ComputeLoad(const ComputeLoad&) = delete;
  ComputeLoad& operator=(const ComputeLoad&) = delete;

  // Time of one GEMM alone: median spacing of back-to-back GEMMs after unmeasured ones.
  double measure_solo();
  // Enqueues GEMMs for 1.25 x `expect_us` plus two (at most kMaxQueuedLoadUs), behind a start event.
  // cuBLAS kernels cannot be told to stop, so what is enqueued beyond the batch runs out after it.
  void start(double expect_us);
  // Waits for the GEMMs. With the window's events (complete, on the collective's stream): the
  // compute's slowdown in the window (>= about 1); 0 when it cannot tell (no window, no solo time).
  double finish(cudaEvent_t window_from = nullptr, cudaEvent_t window_to = nullptr);

 private:
  void gemm();
  void record_done();
  double time_solo(int gemms, int untimed);  // median gap of `gemms` back-to-back GEMMs, the first `untimed` left out
  struct HandleDeleter {
    void operator()(cublasHandle_t h) const noexcept { (void)cublas_calls().destroy(h); }
  };
  CudaStream stream_;  // declared before the handle: destroyed after it
  std::unique_ptr<cublasContext, HandleDeleter> handle_;
  DeviceBuffer a_, b_, c_, workspace_;
  int k_ = 0;
  CudaEvent started_;
  std::vector<CudaEvent> done_;  // one per GEMM enqueued by start()
  int launched_ = 0;
  double solo_us_ = 0;
  double cold_lag_us_ = 0;  // measure_solo's: from the start event to the first GEMM's real start
};

}  // namespace cctune::nccl_detail
