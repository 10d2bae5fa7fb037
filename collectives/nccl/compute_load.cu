// The `--overlap` compute load: compute_load.hpp.
#include "collectives/nccl/compute_load.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace cctune::nccl_detail {
namespace {

constexpr int kTile = 64;    // C tile edge
constexpr int kKTile = 16;   // K per shared-memory step
constexpr int kThreads = 256;  // 16 x 16 threads, each 4 x 4 outputs
constexpr int kDepth = 2048;   // K
constexpr int kATiles = 16;    // distinct 64-row slices of A (16 x 64 x 2048 floats: 8 MiB)
constexpr int kSoloWarm = 4, kSoloTimed = 24;

// C[b] (64 x 64) = A[b mod kATiles] (64 x K, row-major) x B (K x 64, row-major).
__global__ void __launch_bounds__(kThreads) sgemm_tiles(const float* a_all, const float* b, float* c_all,
                                                        const volatile int* stop) {
  __shared__ float as[kKTile][kTile];
  __shared__ float bs[kKTile][kTile];
  __shared__ int quit;
  if (threadIdx.x == 0) quit = *stop;
  __syncthreads();
  if (quit) return;
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const float* a = a_all + static_cast<size_t>(blockIdx.x % kATiles) * kTile * kDepth;
  float acc[4][4] = {};
  for (int k0 = 0; k0 < kDepth; k0 += kKTile) {
    for (int i = threadIdx.x; i < kTile * kKTile; i += kThreads) {
      as[i % kKTile][i / kKTile] = a[static_cast<size_t>(i / kKTile) * kDepth + k0 + i % kKTile];
      bs[i / kTile][i % kTile] = b[static_cast<size_t>(k0 + i / kTile) * kTile + i % kTile];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kKTile; ++k) {
      float av[4], bv[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        av[i] = as[k][ty * 4 + i];
        bv[i] = bs[k][tx * 4 + i];
      }
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] += av[i] * bv[j];
    }
    __syncthreads();
  }
  float* c = c_all + static_cast<size_t>(blockIdx.x) * kTile * kTile;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) c[(ty * 4 + i) * kTile + tx * 4 + j] = acc[i][j];
}

double elapsed_us(cudaEvent_t from, cudaEvent_t to) {
  float ms = 0;
  CCTUNE_CUDA_CHECK(cudaEventElapsedTime(&ms, from, to));
  return static_cast<double>(ms) * 1000.0;
}

}  // namespace

ComputeLoad::ComputeLoad(int device) : stream_(make_stream()) {
  int sms = 0, per_sm = 0;
  CCTUNE_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CCTUNE_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sgemm_tiles, kThreads, 0));
  blocks_ = std::max(sms, 1) * std::max(per_sm, 1);  // one full wave
  const std::size_t a_bytes = sizeof(float) * kATiles * kTile * kDepth, b_bytes = sizeof(float) * kDepth * kTile;
  a_ = DeviceBuffer(a_bytes);
  b_ = DeviceBuffer(b_bytes);
  c_ = DeviceBuffer(sizeof(float) * kTile * kTile * static_cast<std::size_t>(blocks_));
  // Small values: no denormals or infinities to change the speed.
  CCTUNE_CUDA_CHECK(cudaMemsetAsync(a_.get(), 0x3c, a_bytes, stream_.get()));  // ~0.0121
  CCTUNE_CUDA_CHECK(cudaMemsetAsync(b_.get(), 0x3c, b_bytes, stream_.get()));
  stop_ = PinnedBuffer(sizeof(int));
  std::memset(stop_.get(), 0, sizeof(int));
  CCTUNE_CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&stop_device_), stop_.get(), 0));
  CCTUNE_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
}

ComputeLoad::~ComputeLoad() {
  if (stream_) (void)cudaStreamSynchronize(stream_.get());
}

void ComputeLoad::launch_one() {
  sgemm_tiles<<<blocks_, kThreads, 0, stream_.get()>>>(a_.as<float>(), b_.as<float>(), c_.as<float>(), stop_device_);
  CCTUNE_CUDA_CHECK(cudaGetLastError());
  while (done_.size() <= static_cast<std::size_t>(launched_)) done_.push_back(make_event());
  CCTUNE_CUDA_CHECK(cudaEventRecord(done_[launched_].get(), stream_.get()));
  ++launched_;
}

double ComputeLoad::measure_solo() {
  *static_cast<volatile int*>(stop_.get()) = 0;
  launched_ = 0;
  for (int i = 0; i < kSoloWarm + kSoloTimed; ++i) launch_one();
  CCTUNE_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
  std::vector<double> gaps;
  for (int i = kSoloWarm + 1; i < launched_; ++i) gaps.push_back(elapsed_us(done_[i - 1].get(), done_[i].get()));
  std::nth_element(gaps.begin(), gaps.begin() + gaps.size() / 2, gaps.end());
  solo_us_ = gaps[gaps.size() / 2];
  return solo_us_;
}

void ComputeLoad::start(double expect_us) {
  if (solo_us_ <= 0) measure_solo();
  *static_cast<volatile int*>(stop_.get()) = 0;
  launched_ = 0;
  const double want = std::ceil(2 * std::max(expect_us, 0.0) / solo_us_) + 8;
  const int n = static_cast<int>(std::min<double>(want, kComputeLoadMaxLaunches));
  for (int i = 0; i < n; ++i) launch_one();
}

double ComputeLoad::finish(cudaEvent_t window_from, cudaEvent_t window_to) {
  *static_cast<volatile int*>(stop_.get()) = 1;
  CCTUNE_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
  if (!window_from || !window_to || solo_us_ <= 0) return 0;
  const double window_us = elapsed_us(window_from, window_to);
  double first = -1, last = -1;
  int inside = 0;
  for (int i = 0; i < launched_; ++i) {
    const double t = elapsed_us(window_from, done_[i].get());
    if (t <= 0 || t > window_us) continue;
    if (inside++ == 0) first = t;
    last = t;
  }
  if (inside < 3) return 0;
  return (last - first) / (inside - 1) / solo_us_;
}

}  // namespace cctune::nccl_detail
