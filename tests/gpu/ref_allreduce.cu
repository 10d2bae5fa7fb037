// An independent reference for cctune's NCCL timings: a plain ncclAllReduce (or ncclAllGather,
// ncclReduceScatter) loop with nccl-tests' method (one process driving all local GPUs through
// ncclCommInitAll, then the buffers; after a sync, host time around n back-to-back grouped launches and the
// final sync, divided by n). Deliberately shares no code with cctune. float32, sum,
// out-of-place, like nccl-tests' default. Sizes as nccl-tests: for allgather and
// reducescatter the count per rank is SIZE/4/nranks and the size column is count*nranks*4.
//
//   cctune-ref-allreduce [--coll allreduce|allgather|reducescatter] [--gpus N] [-w warmup]
//                        [-n iters] [-r batches] [--zero] SIZE_BYTES...
// The send buffers hold non-zero data, as in nccl-tests (its data check fills them before
// the timed sizes); --zero leaves them zeroed (on one H100 that made no measurable difference).
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
  std::fprintf(stderr,
               "usage: cctune-ref-allreduce [--coll allreduce|allgather|reducescatter] [--gpus N] [-w warmup] "
               "[-n iters] [-r batches] [--zero] SIZE_BYTES...\n");
  std::exit(2);
}

struct Ranks {
  std::vector<ncclComm_t> comms;
  std::vector<cudaStream_t> streams;
  std::vector<void*> send, recv;
};

enum class Coll { AllReduce, AllGather, ReduceScatter };

// nccl-tests launches each iteration as one group over the local GPUs, and without a group
// when it drives one GPU (startColl: `if (args->nGpus > 1) ncclGroupStart()`): a group costs
// host time, which decides launch-bound sizes. `count` is the count passed to the call (per
// rank for allgather/reducescatter).
void run_iters(Ranks& g, Coll coll, size_t count, int n) {
  const bool group = g.comms.size() > 1;
  for (int i = 0; i < n; ++i) {
    if (group) CHECK_NCCL(ncclGroupStart());
    for (size_t r = 0; r < g.comms.size(); ++r) {
      switch (coll) {
        case Coll::AllReduce:
          CHECK_NCCL(ncclAllReduce(g.send[r], g.recv[r], count, ncclFloat32, ncclSum, g.comms[r], g.streams[r]));
          break;
        case Coll::AllGather:
          CHECK_NCCL(ncclAllGather(g.send[r], g.recv[r], count, ncclFloat32, g.comms[r], g.streams[r]));
          break;
        case Coll::ReduceScatter:
          CHECK_NCCL(ncclReduceScatter(g.send[r], g.recv[r], count, ncclFloat32, ncclSum, g.comms[r], g.streams[r]));
          break;
      }
    }
    if (group) CHECK_NCCL(ncclGroupEnd());
  }
}

// Small integers that vary along the buffer and between ranks.
__global__ void fill_floats(float* p, size_t n, int rank) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    p[i] = static_cast<float>(static_cast<int>((i * 5 + static_cast<size_t>(rank) * 11 + 1) % 23) - 11);
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
  bool zero = false;
  Coll coll = Coll::AllReduce;
  std::vector<size_t> sizes;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&] { if (i + 1 >= argc) usage(); return std::atoi(argv[++i]); };
    if (a == "--coll") {
      if (i + 1 >= argc) usage();
      const std::string c = argv[++i];
      if (c == "allreduce") coll = Coll::AllReduce;
      else if (c == "allgather") coll = Coll::AllGather;
      else if (c == "reducescatter") coll = Coll::ReduceScatter;
      else usage();
    } else if (a == "--gpus") gpus = next();
    else if (a == "-w") warmup = next();
    else if (a == "-n") iters = next();
    else if (a == "-r") batches = next();
    else if (a == "--zero") zero = true;
    else if (!a.empty() && a[0] != '-') sizes.push_back(std::strtoull(a.c_str(), nullptr, 10));
    else usage();
  }
  if (sizes.empty() || iters < 1 || batches < 1) usage();
  int visible = 0;
  CHECK_CUDA(cudaGetDeviceCount(&visible));
  if (gpus <= 0 || gpus > visible) gpus = visible;

  // As nccl-tests since NCCL 2.19 (run(): the communicators, then AllocateBuffs: send, receive,
  // expected): where the buffers land moves copy-bound times (on one H100 a 16 MiB one-rank
  // allreduce took 8.9 or 9.2 us depending only on allocation order and buffer size), so the
  // order is nccl-tests', and cctune's NCCL worker follows it too.
  Ranks g;
  g.comms.resize(gpus);
  CHECK_NCCL(ncclCommInitAll(g.comms.data(), gpus, nullptr));
  const size_t max_bytes = *std::max_element(sizes.begin(), sizes.end());
  std::vector<void*> expected;  // nccl-tests' data-check buffer: unused here, allocated for the layout
  for (int r = 0; r < gpus; ++r) {
    CHECK_CUDA(cudaSetDevice(r));
    cudaStream_t s;
    CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    void *a, *b, *e;
    CHECK_CUDA(cudaMalloc(&a, max_bytes));
    CHECK_CUDA(cudaMalloc(&b, max_bytes));
    CHECK_CUDA(cudaMalloc(&e, max_bytes));
    CHECK_CUDA(cudaMemset(a, 0, max_bytes));
    CHECK_CUDA(cudaMemset(b, 0, max_bytes));
    CHECK_CUDA(cudaDeviceSynchronize());  // the memsets run on the legacy stream, s does not wait for it
    if (!zero) {
      fill_floats<<<1024, 256, 0, s>>>(static_cast<float*>(a), max_bytes / sizeof(float), r);
      CHECK_CUDA(cudaGetLastError());
      CHECK_CUDA(cudaStreamSynchronize(s));
    }
    g.send.push_back(a);
    g.recv.push_back(b);
    expected.push_back(e);
    g.streams.push_back(s);
  }

  std::printf("size_bytes,time_us,algbw_GBps,busbw_GBps\n");
  const bool per_rank = coll != Coll::AllReduce;
  for (size_t bytes : sizes) {
    const size_t count = bytes / sizeof(float) / (per_rank ? static_cast<size_t>(gpus) : 1);
    if (count == 0) continue;
    const size_t size_bytes = count * sizeof(float) * (per_rank ? static_cast<size_t>(gpus) : 1);
    run_iters(g, coll, count, warmup);
    sync_all(g);
    std::vector<double> times;
    for (int b = 0; b < batches; ++b) {
      sync_all(g);
      const auto t0 = std::chrono::steady_clock::now();
      run_iters(g, coll, count, iters);
      sync_all(g);
      times.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / iters);
    }
    std::sort(times.begin(), times.end());
    const double t = times[times.size() / 2];
    const double algbw = static_cast<double>(size_bytes) / t / 1e3;  // bytes/us -> GB/s
    const double factor = per_rank ? static_cast<double>(gpus - 1) / gpus : 2.0 * (gpus - 1) / gpus;
    std::printf("%zu,%.2f,%.2f,%.2f\n", size_bytes, t, algbw, algbw * factor);
    std::fflush(stdout);
  }
  for (int r = 0; r < gpus; ++r) {
    CHECK_CUDA(cudaSetDevice(r));
    CHECK_CUDA(cudaFree(g.send[r]));
    CHECK_CUDA(cudaFree(g.recv[r]));
    CHECK_CUDA(cudaFree(expected[r]));
    CHECK_CUDA(cudaStreamDestroy(g.streams[r]));
    CHECK_NCCL(ncclCommDestroy(g.comms[r]));
  }
  return 0;
}
