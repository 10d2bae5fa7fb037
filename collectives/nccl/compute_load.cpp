// The `--overlap` compute load: compute_load.hpp.
#include "collectives/nccl/compute_load.hpp"

#include <algorithm>
#include <cmath>

#include "core/overlap_math.hpp"

namespace cctune::nccl_detail {
namespace {

constexpr int kRows = 8192, kCols = 8192;         // C: 64 Mi outputs, thousands of tiles for any GPU's SMs
constexpr int kMinDepth = 512, kMaxDepth = 8192;  // K, sized to the GPU between these
constexpr int kCalibrateDepth = 2048;
constexpr int kSoloWarm = 2, kSoloTimed = 5;
constexpr int kSoloMin = 4, kSoloMax = 9;                       // after each window: 3..8 timed gaps
constexpr std::size_t kWorkspaceBytes = std::size_t{32} << 20;  // cuBLAS's recommendation for Hopper

double elapsed_us(cudaEvent_t from, cudaEvent_t to) {
  float ms = 0;
  CCTUNE_CUDA_CHECK(cudaEventElapsedTime(&ms, from, to));
  return static_cast<double>(ms) * 1000.0;
}

std::size_t bf16_bytes(std::size_t rows, std::size_t cols) { return 2 * rows * cols; }

}  // namespace

ComputeLoad::ComputeLoad() : stream_(make_stream()), k_(kCalibrateDepth), started_(make_event()) {
  const CublasCalls& cublas = cublas_calls();
  cublasHandle_t handle = nullptr;
  check_cublas(cublas.create(&handle), "cublasCreate");
  handle_.reset(handle);
  check_cublas(cublas.set_stream(handle, stream_.get()), "cublasSetStream");
  // Our own workspace: cuBLAS would otherwise allocate one per stream behind our back.
  workspace_ = DeviceBuffer(kWorkspaceBytes);
  check_cublas(cublas.set_workspace(handle, workspace_.get(), kWorkspaceBytes), "cublasSetWorkspace");
  a_ = DeviceBuffer(bf16_bytes(kRows, kMaxDepth));
  b_ = DeviceBuffer(bf16_bytes(kMaxDepth, kCols));
  c_ = DeviceBuffer(bf16_bytes(kRows, kCols));
  // 0x3c3c in BF16 is about 0.0115: no denormals, infinities or NaNs to change the speed.
  CCTUNE_CUDA_CHECK(cudaMemsetAsync(a_.get(), 0x3c, a_.bytes(), stream_.get()));
  CCTUNE_CUDA_CHECK(cudaMemsetAsync(b_.get(), 0x3c, b_.bytes(), stream_.get()));
  // Sized to the GPU: K so that one GEMM takes about kTargetGemmUs here (time is linear in K).
  const double at_calibration = measure_solo();
  const double depth = kCalibrateDepth * kTargetGemmUs / std::max(at_calibration, 1.0);
  k_ = std::clamp(static_cast<int>(std::lround(depth / 256)) * 256, kMinDepth, kMaxDepth);
  measure_solo();
}

ComputeLoad::~ComputeLoad() {
  if (stream_) (void)cudaStreamSynchronize(stream_.get());
}

void ComputeLoad::gemm() {
  const float alpha = 1.0f, beta = 0.0f;
  // Column-major: C (kRows x kCols) = A (kRows x k_) x B (k_ x kCols), BF16 in and out, FP32 sums.
  check_cublas(
      cublas_calls().gemm_ex(handle_.get(), CUBLAS_OP_N, CUBLAS_OP_N, kRows, kCols, k_, &alpha, a_.get(), CUDA_R_16BF, kRows, b_.get(),
                             CUDA_R_16BF, k_, &beta, c_.get(), CUDA_R_16BF, kRows, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
      "cublasGemmEx (the --overlap load)");
}

void ComputeLoad::record_done() {
  while (done_.size() <= static_cast<std::size_t>(launched_)) done_.push_back(make_event());
  CCTUNE_CUDA_CHECK(cudaEventRecord(done_[launched_].get(), stream_.get()));
  ++launched_;
}

double ComputeLoad::measure_solo() { return time_solo(kSoloWarm + kSoloTimed, kSoloWarm); }

double ComputeLoad::time_solo(int gemms, int untimed) {
  launched_ = 0;
  CCTUNE_CUDA_CHECK(cudaEventRecord(started_.get(), stream_.get()));
  for (int i = 0; i < gemms; ++i) {
    gemm();
    record_done();
  }
  CCTUNE_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
  std::vector<double> gaps;
  for (int i = std::max(untimed, 1); i < launched_; ++i) gaps.push_back(elapsed_us(done_[i - 1].get(), done_[i].get()));
  std::nth_element(gaps.begin(), gaps.begin() + gaps.size() / 2, gaps.end());
  solo_us_ = gaps[gaps.size() / 2];
  // The first GEMM on an idle stream starts a little after the event before it (its launch):
  // finish() takes that lag off, or every window would read it as compute lost.
  cold_lag_us_ = std::clamp(elapsed_us(started_.get(), done_[0].get()) - solo_us_, 0.0, solo_us_);
  return solo_us_;
}

void ComputeLoad::start(double expect_us) {
  if (solo_us_ <= 0) measure_solo();
  launched_ = 0;
  const double queued_us = std::min(1.25 * std::max(expect_us, 0.0), kMaxQueuedLoadUs);
  const int n = static_cast<int>(std::ceil(queued_us / solo_us_)) + 2;
  CCTUNE_CUDA_CHECK(cudaEventRecord(started_.get(), stream_.get()));
  for (int i = 0; i < n; ++i) {
    gemm();
    record_done();
  }
}

double ComputeLoad::finish(cudaEvent_t window_from, cudaEvent_t window_to) {
  CCTUNE_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
  if (!window_from || !window_to || solo_us_ <= 0) return 0;
  // Every time from the start event, the earliest of all (recorded before the batch), then
  // shifted to the window's start.
  const double from = elapsed_us(started_.get(), window_from);
  const double window_us = elapsed_us(started_.get(), window_to) - from;
  const double start_us = cold_lag_us_ - from;
  std::vector<double> ends;
  for (int i = 0; i < launched_; ++i) ends.push_back(elapsed_us(started_.get(), done_[i].get()) - from);
  // The GEMM alone, timed again right now: a GEMM's speed follows the GPU's clock, which a
  // sustained load lowers and an idle spell raises. Timed once before the point, in a worker
  // fresh from set-up, it read faster than the loaded GPU could run it, and every point's compute
  // loss read 2x what the same point showed later in a warm worker (4 x H200, DDP shapes).
  // Right after the window the GPU is as warm as it was in it; as many GEMMs as the window
  // overlapped (kSoloMin..kSoloMax) keep this within the batch's own length.
  const auto overlapped = static_cast<int>(std::count_if(ends.begin(), ends.end(), [&](double e) { return e > 0; }));
  time_solo(std::clamp(overlapped + 1, kSoloMin, kSoloMax), 1);
  return window_slowdown(start_us, ends, window_us, solo_us_);
}

}  // namespace cctune::nccl_detail
