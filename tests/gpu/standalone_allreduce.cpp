// A plain NCCL program that knows nothing of cctune: one process drives every GPU it is
// given (ncclCommInitAll) and runs the collectives named on the command line. Used by
// plugin_gpu_check.sh to show that NCCL_TUNER_PLUGIN=libnccl-tuner-cctune.so with
// CCTUNE_PROFILE steers any NCCL program.
//
//   standalone_allreduce --version             prints the NCCL version ("2.28.9")
//   standalone_allreduce [--ngpus N] OP:BYTES...   OP is allreduce or allgather; BYTES is
//       NCCL's nBytes (max of send and receive bytes per rank; for allgather the gathered
//       total, so each rank sends BYTES/N).
#include <cuda_runtime.h>
#include <nccl.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CHECK_CUDA(call)                                                                         \
  do {                                                                                           \
    cudaError_t e = (call);                                                                      \
    if (e != cudaSuccess) {                                                                      \
      std::fprintf(stderr, "standalone_allreduce: %s failed: %s\n", #call, cudaGetErrorString(e)); \
      std::exit(1);                                                                              \
    }                                                                                            \
  } while (0)
#define CHECK_NCCL(call)                                                                           \
  do {                                                                                             \
    ncclResult_t r = (call);                                                                       \
    if (r != ncclSuccess) {                                                                        \
      std::fprintf(stderr, "standalone_allreduce: %s failed: %s\n", #call, ncclGetErrorString(r)); \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

struct Op {
  bool allgather = false;
  size_t bytes = 0;
};

int main(int argc, char** argv) {
  int ngpus = 0;
  std::vector<Op> ops;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--version") {
      int v = 0;
      CHECK_NCCL(ncclGetVersion(&v));
      std::printf("%d.%d.%d\n", v / 10000, v / 100 % 100, v % 100);
      return 0;
    }
    if (arg == "--ngpus" && i + 1 < argc) {
      ngpus = std::atoi(argv[++i]);
      continue;
    }
    const auto colon = arg.find(':');
    const std::string name = arg.substr(0, colon);
    if (colon == std::string::npos || (name != "allreduce" && name != "allgather")) {
      std::fprintf(stderr, "usage: %s [--version] [--ngpus N] allreduce:BYTES|allgather:BYTES...\n", argv[0]);
      return 2;
    }
    ops.push_back({name == "allgather", std::strtoull(arg.c_str() + colon + 1, nullptr, 10)});
  }
  int available = 0;
  CHECK_CUDA(cudaGetDeviceCount(&available));
  if (ngpus <= 0 || ngpus > available) ngpus = available;
  if (ngpus < 2) {
    std::fprintf(stderr, "standalone_allreduce: needs at least 2 GPUs, found %d\n", available);
    return 77;
  }
  size_t max_bytes = 4;
  for (const Op& op : ops) max_bytes = op.bytes > max_bytes ? op.bytes : max_bytes;

  std::vector<int> devices(ngpus);
  for (int i = 0; i < ngpus; ++i) devices[i] = i;
  std::vector<ncclComm_t> comms(ngpus);
  CHECK_NCCL(ncclCommInitAll(comms.data(), ngpus, devices.data()));
  std::vector<cudaStream_t> streams(ngpus);
  std::vector<float*> send(ngpus), recv(ngpus);
  for (int i = 0; i < ngpus; ++i) {
    CHECK_CUDA(cudaSetDevice(i));
    CHECK_CUDA(cudaStreamCreate(&streams[i]));
    CHECK_CUDA(cudaMalloc(&send[i], max_bytes));
    CHECK_CUDA(cudaMalloc(&recv[i], max_bytes));
    CHECK_CUDA(cudaMemset(send[i], 0, max_bytes));
  }
  for (const Op& op : ops) {
    for (int iteration = 0; iteration < 3; ++iteration) {
      CHECK_NCCL(ncclGroupStart());
      for (int i = 0; i < ngpus; ++i) {
        if (op.allgather)
          CHECK_NCCL(ncclAllGather(send[i], recv[i], op.bytes / sizeof(float) / ngpus, ncclFloat, comms[i], streams[i]));
        else
          CHECK_NCCL(ncclAllReduce(send[i], recv[i], op.bytes / sizeof(float), ncclFloat, ncclSum, comms[i], streams[i]));
      }
      CHECK_NCCL(ncclGroupEnd());
    }
    for (int i = 0; i < ngpus; ++i) {
      CHECK_CUDA(cudaSetDevice(i));
      CHECK_CUDA(cudaStreamSynchronize(streams[i]));
    }
    std::printf("standalone_allreduce: %s %zu bytes on %d GPUs ok\n", op.allgather ? "allgather" : "allreduce", op.bytes,
                ngpus);
  }
  for (int i = 0; i < ngpus; ++i) {
    CHECK_CUDA(cudaSetDevice(i));
    CHECK_CUDA(cudaFree(send[i]));
    CHECK_CUDA(cudaFree(recv[i]));
    CHECK_CUDA(cudaStreamDestroy(streams[i]));
    ncclCommDestroy(comms[i]);
  }
  return 0;
}
