// An independent reference for cctune's NCCL timings: a plain ncclAllReduce loop with
// nccl-tests' method (one process driving all local GPUs through ncclCommInitAll; after a
// sync, host time around n back-to-back grouped launches and the final sync, divided by n).
// Deliberately shares no code with cctune. float32, sum, out-of-place, like nccl-tests' default.
//
//   cctune-ref-allreduce [--gpus N] [-w warmup] [-n iters] [-r batches] SIZE_BYTES...
// prints CSV: size_bytes,time_us,algbw_GBps,busbw_GBps  (time: median over batches)
#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CHECK_CUDA(x)                                                                               \
  do {                                                                                              \
    cudaError_t e_ = (x);                                                                           \
    if (e_ != cudaSuccess) {                                                                        \
      std::fprintf(stderr, "ref_allreduce: %s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                                 \
    }                                                                                               \
  } while (0)
#define CHECK_NCCL(x)                                                                               \
  do {                                                                                              \
    ncclResult_t r_ = (x);                                                                          \
    if (r_ != ncclSuccess) {                                                                        \
      std::fprintf(stderr, "ref_allreduce: %s:%d: %s: %s\n", __FILE__, __LINE__, #x, ncclGetErrorString(r_)); \
      std::exit(1);                                                                                 \
    }                                                                                               \
  } while (0)

namespace {

void usage() {
  std::fprintf(stderr, "usage: cctune-ref-allreduce [--gpus N] [-w warmup] [-n iters] [-r batches] SIZE_BYTES...\n");
  std::exit(2);
}

struct Ranks {
  std::vector<ncclComm_t> comms;
  std::vector<cudaStream_t> streams;
  std::vector<void*> send, recv;
};

// nccl-tests launches each iteration as one group over the local GPUs.
void run_iters(Ranks& g, size_t count, int n) {
  for (int i = 0; i < n; ++i) {
    CHECK_NCCL(ncclGroupStart());
    for (size_t r = 0; r < g.comms.size(); ++r)
      CHECK_NCCL(ncclAllReduce(g.send[r], g.recv[r], count, ncclFloat32, ncclSum, g.comms[r], g.streams[r]));
    CHECK_NCCL(ncclGroupEnd());
  }
}

void sync_all(Ranks& g) {
  for (size_t r = 0; r < g.streams.size(); ++r) {
    CHECK_CUDA(cudaSetDevice(static_cast<int>(r)));
    CHECK_CUDA(cudaStreamSynchronize(g.streams[r]));
  }
}

}  // namespace

int main(int argc, char** argv) {
  int gpus = 0, warmup = 5, iters = 20, batches = 5;
  std::vector<size_t> sizes;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&] { if (i + 1 >= argc) usage(); return std::atoi(argv[++i]); };
    if (a == "--gpus") gpus = next();
    else if (a == "-w") warmup = next();
    else if (a == "-n") iters = next();
    else if (a == "-r") batches = next();
    else if (!a.empty() && a[0] != '-') sizes.push_back(std::strtoull(a.c_str(), nullptr, 10));
    else usage();
  }
  if (sizes.empty() || iters < 1 || batches < 1) usage();
  int visible = 0;
  CHECK_CUDA(cudaGetDeviceCount(&visible));
  if (gpus <= 0 || gpus > visible) gpus = visible;

  Ranks g;
  g.comms.resize(gpus);
  CHECK_NCCL(ncclCommInitAll(g.comms.data(), gpus, nullptr));
  const size_t max_bytes = *std::max_element(sizes.begin(), sizes.end());
  for (int r = 0; r < gpus; ++r) {
    CHECK_CUDA(cudaSetDevice(r));
    cudaStream_t s;
    CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    g.streams.push_back(s);
    void *a, *b;
    CHECK_CUDA(cudaMalloc(&a, max_bytes));
    CHECK_CUDA(cudaMalloc(&b, max_bytes));
    CHECK_CUDA(cudaMemset(a, 0, max_bytes));
    g.send.push_back(a);
    g.recv.push_back(b);
  }

  std::printf("size_bytes,time_us,algbw_GBps,busbw_GBps\n");
  for (size_t bytes : sizes) {
    const size_t count = bytes / sizeof(float);
    if (count == 0) continue;
    run_iters(g, count, warmup);
    sync_all(g);
    std::vector<double> times;
    for (int b = 0; b < batches; ++b) {
      sync_all(g);
      const auto t0 = std::chrono::steady_clock::now();
      run_iters(g, count, iters);
      sync_all(g);
      times.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / iters);
    }
    std::sort(times.begin(), times.end());
    const double t = times[times.size() / 2];
    const double algbw = static_cast<double>(count * sizeof(float)) / t / 1e3;  // bytes/us -> GB/s
    const double busbw = algbw * 2.0 * (gpus - 1) / gpus;
    std::printf("%zu,%.2f,%.2f,%.2f\n", count * sizeof(float), t, algbw, busbw);
    std::fflush(stdout);
  }
  for (int r = 0; r < gpus; ++r) {
    CHECK_CUDA(cudaSetDevice(r));
    CHECK_CUDA(cudaFree(g.send[r]));
    CHECK_CUDA(cudaFree(g.recv[r]));
    CHECK_CUDA(cudaStreamDestroy(g.streams[r]));
    CHECK_NCCL(ncclCommDestroy(g.comms[r]));
  }
  return 0;
}
