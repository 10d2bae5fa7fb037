// A plain NCCL program that knows nothing of cctune: it runs the collectives named on the
// command line. Used by plugin_gpu_check.sh to show that NCCL_TUNER_PLUGIN=libnccl-tuner-cctune.so
// with CCTUNE_PROFILE steers any NCCL program.
//
//   standalone_allreduce --version             prints the NCCL version ("2.28.9")
//   standalone_allreduce [--ngpus N] OP:BYTES...   one process drives N GPUs (ncclCommInitAll)
//   standalone_allreduce --shared-gpu N OP:BYTES...  N processes share GPU 0, each its own
//       NCCL host (NCCL_HOSTID), so NCCL accepts them: they talk over its socket transport
//   OP is allreduce or allgather; BYTES is NCCL's nBytes (max of send and receive bytes per
//   rank; for allgather the gathered total, so each rank sends BYTES/N).
#include <cuda_runtime.h>
#include <nccl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

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

// One rank's view: the communicator, stream and buffers of one GPU.
struct Rank {
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  float* send = nullptr;
  float* recv = nullptr;
  int device = 0;
};

void allocate(Rank& r, size_t max_bytes) {
  CHECK_CUDA(cudaSetDevice(r.device));
  CHECK_CUDA(cudaStreamCreate(&r.stream));
  CHECK_CUDA(cudaMalloc(&r.send, max_bytes));
  CHECK_CUDA(cudaMalloc(&r.recv, max_bytes));
  CHECK_CUDA(cudaMemset(r.send, 0, max_bytes));
}

void release(Rank& r) {
  CHECK_CUDA(cudaSetDevice(r.device));
  CHECK_CUDA(cudaFree(r.send));
  CHECK_CUDA(cudaFree(r.recv));
  CHECK_CUDA(cudaStreamDestroy(r.stream));
  ncclCommDestroy(r.comm);
}

// Runs every op three times on all `ranks` (this process's share of the communicator).
void run_ops(std::vector<Rank>& ranks, const std::vector<Op>& ops, int nranks, bool report) {
  for (const Op& op : ops) {
    for (int iteration = 0; iteration < 3; ++iteration) {
      CHECK_NCCL(ncclGroupStart());
      for (Rank& rk : ranks) {
        if (op.allgather)
          CHECK_NCCL(ncclAllGather(rk.send, rk.recv, op.bytes / sizeof(float) / nranks, ncclFloat, rk.comm, rk.stream));
        else
          CHECK_NCCL(ncclAllReduce(rk.send, rk.recv, op.bytes / sizeof(float), ncclFloat, ncclSum, rk.comm, rk.stream));
      }
      CHECK_NCCL(ncclGroupEnd());
    }
    for (Rank& r : ranks) {
      CHECK_CUDA(cudaSetDevice(r.device));
      CHECK_CUDA(cudaStreamSynchronize(r.stream));
    }
    if (report)
      std::printf("standalone_allreduce: %s %zu bytes on %d ranks ok\n", op.allgather ? "allgather" : "allreduce", op.bytes, nranks);
    std::fflush(stdout);
  }
}

int run_multi_gpu(int ngpus, const std::vector<Op>& ops, size_t max_bytes) {
  int available = 0;
  CHECK_CUDA(cudaGetDeviceCount(&available));
  if (ngpus <= 0 || ngpus > available) ngpus = available;
  if (ngpus < 2) {
    std::fprintf(stderr, "standalone_allreduce: needs at least 2 GPUs, found %d (or use --shared-gpu N)\n", available);
    return 77;
  }
  std::vector<int> devices(ngpus);
  for (int i = 0; i < ngpus; ++i) devices[i] = i;
  std::vector<ncclComm_t> comms(ngpus);
  CHECK_NCCL(ncclCommInitAll(comms.data(), ngpus, devices.data()));
  std::vector<Rank> ranks(ngpus);
  for (int i = 0; i < ngpus; ++i) {
    ranks[i].comm = comms[i];
    ranks[i].device = i;
    allocate(ranks[i], max_bytes);
  }
  run_ops(ranks, ops, ngpus, true);
  for (Rank& r : ranks) release(r);
  return 0;
}

// Child `rank` of --shared-gpu: its own NCCL host before NCCL reads anything; rank 0 makes the
// unique id and hands a copy to every other rank through `id_pipe`.
int shared_gpu_child(int rank, int nranks, int id_pipe[2], const std::vector<Op>& ops, size_t max_bytes) {
  const std::string host_id = "standalone-shared" + std::to_string(rank);
  setenv("NCCL_HOSTID", host_id.c_str(), 1);
  ncclUniqueId id;
  if (rank == 0) {
    CHECK_NCCL(ncclGetUniqueId(&id));
    for (int k = 1; k < nranks; ++k)
      if (write(id_pipe[1], &id, sizeof id) != static_cast<ssize_t>(sizeof id)) return 1;  // atomic: below PIPE_BUF
  } else if (read(id_pipe[0], &id, sizeof id) != static_cast<ssize_t>(sizeof id)) {
    return 1;
  }
  close(id_pipe[0]);
  close(id_pipe[1]);
  std::vector<Rank> ranks(1);
  CHECK_CUDA(cudaSetDevice(0));
  CHECK_NCCL(ncclCommInitRank(&ranks[0].comm, nranks, id, rank));
  allocate(ranks[0], max_bytes);
  run_ops(ranks, ops, nranks, rank == 0);
  release(ranks[0]);
  return 0;
}

// The parent touches neither CUDA nor NCCL (neither survives fork). A child that fails would
// leave the others waiting in NCCL forever, so the first failure ends them all.
int run_shared_gpu(int nranks, const std::vector<Op>& ops, size_t max_bytes) {
  int id_pipe[2];
  if (nranks < 2 || pipe(id_pipe) != 0) {
    std::fprintf(stderr, "standalone_allreduce: --shared-gpu needs N >= 2\n");
    return 2;
  }
  std::vector<pid_t> children;
  for (int rank = 0; rank < nranks; ++rank) {
    const pid_t pid = fork();
    if (pid == 0) _exit(shared_gpu_child(rank, nranks, id_pipe, ops, max_bytes));
    if (pid < 0) {
      std::perror("standalone_allreduce: fork");
      for (pid_t c : children) kill(c, SIGKILL);
      return 1;
    }
    children.push_back(pid);
  }
  close(id_pipe[0]);
  close(id_pipe[1]);
  int failed = 0;
  for (size_t left = children.size(); left > 0; --left) {
    int status = 0;
    const pid_t pid = wait(&status);
    if (pid < 0) break;
    for (pid_t& c : children)
      if (c == pid) c = 0;  // reaped: never signalled again
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      if (!failed) std::fprintf(stderr, "standalone_allreduce: a rank (pid %d) failed; stopping the others\n", static_cast<int>(pid));
      failed = 1;
      for (pid_t c : children)
        if (c > 0) kill(c, SIGKILL);
    }
  }
  return failed;
}

int main(int argc, char** argv) {
  int ngpus = 0, shared = 0;
  std::vector<Op> ops;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--version") {
      int v = 0;
      CHECK_NCCL(ncclGetVersion(&v));
      std::printf("%d.%d.%d\n", v / 10000, v / 100 % 100, v % 100);
      return 0;
    }
    if ((arg == "--ngpus" || arg == "--shared-gpu") && i + 1 < argc) {
      (arg == "--ngpus" ? ngpus : shared) = std::atoi(argv[++i]);
      continue;
    }
    const auto colon = arg.find(':');
    const std::string name = arg.substr(0, colon);
    if (colon == std::string::npos || (name != "allreduce" && name != "allgather")) {
      std::fprintf(stderr, "usage: %s [--version] [--ngpus N | --shared-gpu N] allreduce:BYTES|allgather:BYTES...\n", argv[0]);
      return 2;
    }
    ops.push_back({name == "allgather", std::strtoull(arg.c_str() + colon + 1, nullptr, 10)});
  }
  size_t max_bytes = 4;
  for (const Op& op : ops) max_bytes = op.bytes > max_bytes ? op.bytes : max_bytes;
  return shared > 0 ? run_shared_gpu(shared, ops, max_bytes) : run_multi_gpu(ngpus, ops, max_bytes);
}
