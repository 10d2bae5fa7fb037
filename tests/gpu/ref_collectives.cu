// An independent reference for cctune's NCCL timings: a plain loop over one NCCL collective
// with nccl-tests' method (one process driving all local GPUs through ncclCommInitAll, then the
// buffers; after a sync, host time around n back-to-back launches and the final sync, divided
// by n). Deliberately shares no code with cctune. float32, sum, root 0, like nccl-tests'
// defaults. Counts and layouts as nccl-tests' src/<collective>.cu:
//  - allreduce, broadcast, reduce, sendrecv: count = SIZE/4; the others count = SIZE/4/nranks
//    per rank, and the size column is max(send, recv) bytes of one rank;
//  - in place (--in-place): allgather and gather send from recv + rank*count, reducescatter
//    and scatter receive into send + rank*count, the others use one buffer (in-place alltoall
//    and sendrecv are not measured, by cctune nor here: grouped p2p overwrites its input);
//  - alltoall, gather, scatter: --impl native calls ncclAlltoAll/ncclGather/ncclScatter, which
//    are weak symbols here (as in nccl-tests >= NCCL 2.28), so an older libnccl runs too and
//    the native variant then exits 3 naming the call; --impl grouped runs nccl-tests' grouped
//    ncclSend/ncclRecv compositions.
//
//   cctune-ref-collectives [--coll NAME] [--impl native|grouped] [--in-place] [--gpus N]
//                          [--rank R --nranks N --id-file PATH]
//                          [-w warmup] [-n iters] [-r batches] [--zero]
//                          [--ab-env NAME=VALUE ... | --ab-events WORD] [--ab-rounds R] SIZE_BYTES...
// --rank/--nranks/--id-file: one process per GPU instead (nccl-tests under mpirun with -g 1, and
// a framework's usual shape): N processes on one host, process R drives GPU R through
// ncclCommInitRank; rank 0 writes NCCL's unique id to PATH (written aside, then renamed), the
// others wait for it. Each call is then its own operation, with no group around it. Only rank 0
// prints; a batch's time is the mean of the ranks' host times, nccl-tests' default report.
// NAME: allreduce (default), allgather, reducescatter, broadcast, reduce, alltoall, sendrecv,
// gather, scatter. The send buffers hold non-zero data, as in nccl-tests (its data check
// fills them before the timed sizes); --zero leaves them zeroed.
// prints CSV: size_bytes,time_us,algbw_GBps,busbw_GBps  (time: median over batches); with
// --ab-rounds, side,round first (run_ab and run_switch below).
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <nccl.h>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
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
      std::fprintf(stderr, "ref_collectives: %s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                                 \
    }                                                                                               \
  } while (0)
#define CHECK_NCCL(x)                                                                               \
  do {                                                                                              \
    ncclResult_t r_ = (x);                                                                          \
    if (r_ != ncclSuccess) {                                                                        \
      std::fprintf(stderr, "ref_collectives: %s:%d: %s: %s\n", __FILE__, __LINE__, #x, ncclGetErrorString(r_)); \
      std::exit(1);                                                                                 \
    }                                                                                               \
  } while (0)

// NCCL >= 2.28's native calls, weak: null where the loaded libnccl lacks them.
#pragma weak ncclAlltoAll
#pragma weak ncclGather
#pragma weak ncclScatter

namespace {

void usage() {
  std::fprintf(stderr,
               "usage: cctune-ref-collectives [--coll NAME] [--impl native|grouped] [--in-place] [--gpus N] "
               "[--rank R --nranks N --id-file PATH] [-w warmup] [-n iters] [-r batches] [--zero] [--ab-env NAME=VALUE ... | --ab-events WORD] [--ab-rounds R] SIZE_BYTES...\n");
  std::exit(2);
}

enum class Coll { AllReduce, AllGather, ReduceScatter, Broadcast, Reduce, AllToAll, SendRecv, Gather, Scatter };
const char* const kNames[] = {"allreduce", "allgather", "reducescatter", "broadcast", "reduce",
                              "alltoall",  "sendrecv",  "gather",        "scatter"};

// The count passed to the call is per rank (SIZE/4/nranks) for these.
bool per_rank_count(Coll c) {
  return c == Coll::AllGather || c == Coll::ReduceScatter || c == Coll::AllToAll || c == Coll::Gather || c == Coll::Scatter;
}

// nccl-tests' GetBw factors.
double bus_factor(Coll c, int n) {
  if (c == Coll::AllReduce) return 2.0 * (n - 1) / n;
  if (c == Coll::Broadcast || c == Coll::Reduce || c == Coll::SendRecv) return 1.0;
  return static_cast<double>(n - 1) / n;
}

struct Ranks {
  int first = 0;  // the global rank and the GPU of local rank 0
  int world = 0;  // ranks in the communicator, all processes together
  std::vector<ncclComm_t> comms;
  std::vector<cudaStream_t> streams;
  std::vector<char*> send, recv;
  std::vector<void*> expected;
  double* timing = nullptr;  // one process per GPU: where the ranks' batch times are summed
};

struct Op {
  Coll coll = Coll::AllReduce;
  bool native = true;  // alltoall, gather, scatter
  bool in_place = false;
};

// Where local rank r's call reads and writes (nccl-tests' sendInplaceOffset / recvInplaceOffset).
void buffers(const Ranks& g, const Op& op, int r, size_t count, char** send, char** recv) {
  const size_t mine = static_cast<size_t>(g.first + r) * count * sizeof(float);
  *send = g.send[r];
  *recv = g.recv[r];
  if (!op.in_place) return;
  switch (op.coll) {
    case Coll::AllGather:
    case Coll::Gather: *send = g.recv[r] + mine; break;
    case Coll::ReduceScatter:
    case Coll::Scatter: *recv = g.send[r] + mine; break;
    default: *send = g.recv[r]; break;
  }
}

// nccl-tests' grouped compositions (alltoall.cu, gather.cu, scatter.cu, sendrecv.cu).
void grouped(const Op& op, char* send, char* recv, size_t count, int me, int n, ncclComm_t comm, cudaStream_t s) {
  const size_t block = count * sizeof(float);
  CHECK_NCCL(ncclGroupStart());
  switch (op.coll) {
    case Coll::AllToAll:
      for (int r = 0; r < n; ++r) {
        CHECK_NCCL(ncclSend(send + r * block, count, ncclFloat32, r, comm, s));
        CHECK_NCCL(ncclRecv(recv + r * block, count, ncclFloat32, r, comm, s));
      }
      break;
    case Coll::Gather:
      CHECK_NCCL(ncclSend(send, count, ncclFloat32, 0, comm, s));
      if (me == 0)
        for (int r = 0; r < n; ++r) CHECK_NCCL(ncclRecv(recv + r * block, count, ncclFloat32, r, comm, s));
      break;
    case Coll::Scatter:
      if (me == 0)
        for (int r = 0; r < n; ++r) CHECK_NCCL(ncclSend(send + r * block, count, ncclFloat32, r, comm, s));
      CHECK_NCCL(ncclRecv(recv, count, ncclFloat32, 0, comm, s));
      break;
    default:  // sendrecv: a ring
      CHECK_NCCL(ncclSend(send, count, ncclFloat32, (me + 1) % n, comm, s));
      CHECK_NCCL(ncclRecv(recv, count, ncclFloat32, (me + n - 1) % n, comm, s));
      break;
  }
  CHECK_NCCL(ncclGroupEnd());
}

void launch(const Op& op, char* send, char* recv, size_t count, int me, int n, ncclComm_t comm, cudaStream_t s) {
  switch (op.coll) {
    case Coll::AllReduce: CHECK_NCCL(ncclAllReduce(send, recv, count, ncclFloat32, ncclSum, comm, s)); return;
    case Coll::AllGather: CHECK_NCCL(ncclAllGather(send, recv, count, ncclFloat32, comm, s)); return;
    case Coll::ReduceScatter: CHECK_NCCL(ncclReduceScatter(send, recv, count, ncclFloat32, ncclSum, comm, s)); return;
    case Coll::Broadcast: CHECK_NCCL(ncclBroadcast(send, recv, count, ncclFloat32, 0, comm, s)); return;
    case Coll::Reduce: CHECK_NCCL(ncclReduce(send, recv, count, ncclFloat32, ncclSum, 0, comm, s)); return;
    case Coll::AllToAll:
      if (op.native) CHECK_NCCL(ncclAlltoAll(send, recv, count, ncclFloat32, comm, s));
      else grouped(op, send, recv, count, me, n, comm, s);
      return;
    case Coll::Gather:
      if (op.native) CHECK_NCCL(ncclGather(send, recv, count, ncclFloat32, 0, comm, s));
      else grouped(op, send, recv, count, me, n, comm, s);
      return;
    case Coll::Scatter:
      if (op.native) CHECK_NCCL(ncclScatter(send, recv, count, ncclFloat32, 0, comm, s));
      else grouped(op, send, recv, count, me, n, comm, s);
      return;
    case Coll::SendRecv: grouped(op, send, recv, count, me, n, comm, s); return;
  }
}

// nccl-tests launches each iteration as one group over the local GPUs, and without a group
// when it drives one GPU (startColl: `if (args->nGpus > 1) ncclGroupStart()`): a group costs
// host time, which decides launch-bound sizes.
void run_iters(Ranks& g, const Op& op, size_t count, int n) {
  const int nranks = static_cast<int>(g.comms.size());
  const bool group = nranks > 1;
  for (int i = 0; i < n; ++i) {
    if (group) CHECK_NCCL(ncclGroupStart());
    for (int r = 0; r < nranks; ++r) {
      char *send, *recv;
      buffers(g, op, r, count, &send, &recv);
      launch(op, send, recv, count, g.first + r, g.world, g.comms[r], g.streams[r]);
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
    CHECK_CUDA(cudaSetDevice(g.first + static_cast<int>(r)));
    CHECK_CUDA(cudaStreamSynchronize(g.streams[r]));
  }
}

bool native_present(Coll c) {
  switch (c) {
    case Coll::AllToAll: return &ncclAlltoAll != nullptr;
    case Coll::Gather: return &ncclGather != nullptr;
    case Coll::Scatter: return &ncclScatter != nullptr;
    default: return true;
  }
}

// One process per GPU: this process's rank and the file the unique id travels through.
struct Procs {
  int rank = -1, nranks = 0;
  std::string id_file;
};

ncclUniqueId shared_id(const Procs& p) {
  ncclUniqueId id;
  if (p.rank == 0) {
    CHECK_NCCL(ncclGetUniqueId(&id));
    const std::string tmp = p.id_file + ".tmp";
    FILE* f = std::fopen(tmp.c_str(), "wb");
    if (!f || std::fwrite(&id, sizeof id, 1, f) != 1 || std::fclose(f) != 0 || std::rename(tmp.c_str(), p.id_file.c_str()) != 0) {
      std::fprintf(stderr, "ref_collectives: cannot write the unique id to %s: %s\n", p.id_file.c_str(), std::strerror(errno));
      std::exit(1);
    }
    return id;
  }
  for (int waited_ms = 0; waited_ms < 120000; waited_ms += 10) {
    if (FILE* f = std::fopen(p.id_file.c_str(), "rb")) {
      const bool read = std::fread(&id, sizeof id, 1, f) == 1;
      std::fclose(f);
      if (read) return id;
    }
    usleep(10000);
  }
  std::fprintf(stderr, "ref_collectives: rank %d: no unique id in %s after 120 s (did rank 0 start?)\n", p.rank, p.id_file.c_str());
  std::exit(1);
}

// As nccl-tests since NCCL 2.19 (run(): the communicators, then AllocateBuffs: send, receive,
// expected): where the buffers land moves copy-bound times (on one H100 a 16 MiB one-rank
// allreduce took 8.9 or 9.2 us depending only on allocation order and buffer size), so the
// order is nccl-tests', and cctune's NCCL worker follows it too.
void set_up(Ranks& g, int gpus, size_t max_bytes, bool zero, const Procs& procs) {
  if (procs.nranks > 0) {
    g.first = procs.rank;
    g.world = procs.nranks;
    g.comms.resize(1);
    const ncclUniqueId id = shared_id(procs);
    CHECK_CUDA(cudaSetDevice(procs.rank));
    CHECK_NCCL(ncclCommInitRank(&g.comms[0], procs.nranks, id, procs.rank));
    gpus = 1;
    void* t;
    CHECK_CUDA(cudaMalloc(&t, sizeof(double)));
    g.timing = static_cast<double*>(t);
  } else {
    g.first = 0;
    g.world = gpus;
    g.comms.resize(gpus);
    CHECK_NCCL(ncclCommInitAll(g.comms.data(), gpus, nullptr));
  }
  for (int r = 0; r < gpus; ++r) {
    CHECK_CUDA(cudaSetDevice(g.first + r));
    cudaStream_t s;
    CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    void *a, *b, *e;
    CHECK_CUDA(cudaMalloc(&a, max_bytes));
    CHECK_CUDA(cudaMalloc(&b, max_bytes));
    CHECK_CUDA(cudaMalloc(&e, max_bytes));  // nccl-tests' data-check buffer: unused here, allocated for the layout
    CHECK_CUDA(cudaMemset(a, 0, max_bytes));
    CHECK_CUDA(cudaMemset(b, 0, max_bytes));
    CHECK_CUDA(cudaDeviceSynchronize());  // the memsets run on the legacy stream, s does not wait for it
    if (!zero) {
      // Both buffers: in place the input lies in the receive buffer (or, for reducescatter and
      // scatter, the output in the send buffer).
      for (void* p : {a, b}) fill_floats<<<1024, 256, 0, s>>>(static_cast<float*>(p), max_bytes / sizeof(float), g.first + r);
      CHECK_CUDA(cudaGetLastError());
      CHECK_CUDA(cudaStreamSynchronize(s));
    }
    g.send.push_back(static_cast<char*>(a));
    g.recv.push_back(static_cast<char*>(b));
    g.expected.push_back(e);
    g.streams.push_back(s);
  }
}

void tear_down(Ranks& g) {
  for (size_t r = 0; r < g.comms.size(); ++r) {
    CHECK_CUDA(cudaSetDevice(g.first + static_cast<int>(r)));
    CHECK_CUDA(cudaFree(g.send[r]));
    CHECK_CUDA(cudaFree(g.recv[r]));
    CHECK_CUDA(cudaFree(g.expected[r]));
    CHECK_CUDA(cudaStreamDestroy(g.streams[r]));
    CHECK_NCCL(ncclCommDestroy(g.comms[r]));
  }
  if (g.timing) {
    CHECK_CUDA(cudaSetDevice(g.first));
    CHECK_CUDA(cudaFree(g.timing));
  }
  g = Ranks{};
}

// One process per GPU: every rank here before any starts a batch, as nccl-tests' Barrier()
// before its timed loop (a one-float all-reduce, which completes only once every rank issued
// it). Without it rank 0's time held the other processes' lag at the batch's start: on 4xH200
// the reference read 0.7-1.6 us per operation slower than cctune at 16 MiB, over 20 launches.
void barrier(Ranks& g) {
  if (static_cast<int>(g.comms.size()) == g.world) return;  // one process: sync_all is the barrier
  CHECK_NCCL(ncclAllReduce(g.send[0], g.recv[0], 1, ncclFloat, ncclSum, g.comms[0], g.streams[0]));
  sync_all(g);
}

// One process per GPU: the mean of every rank's `us`, as nccl-tests reports by default (-a 1:
// its ranks' times averaged with an MPI all-reduce; cctune's batch_us is that mean too). Rank 0's
// own time is the root's in reduce and gather: with it, on 2xH100 at 16 MiB, the reference read
// 0.4-1.1 us per operation slower than cctune in exactly those two. One process has one host
// clock for all its GPUs.
double mean_over_ranks(Ranks& g, double us) {
  if (static_cast<int>(g.comms.size()) == g.world) return us;
  CHECK_CUDA(cudaSetDevice(g.first));
  double sum = 0;
  CHECK_CUDA(cudaMemcpyAsync(g.timing, &us, sizeof us, cudaMemcpyHostToDevice, g.streams[0]));
  CHECK_NCCL(ncclAllReduce(g.timing, g.timing, 1, ncclDouble, ncclSum, g.comms[0], g.streams[0]));
  CHECK_CUDA(cudaMemcpyAsync(&sum, g.timing, sizeof sum, cudaMemcpyDeviceToHost, g.streams[0]));
  CHECK_CUDA(cudaStreamSynchronize(g.streams[0]));
  return sum / g.world;
}

// Host time per launch (us) of `iters` back-to-back launches, from a synced start to a synced
// end; with one process per GPU, the mean over the ranks.
double time_batch(Ranks& g, const Op& op, size_t count, int iters) {
  sync_all(g);
  barrier(g);
  const auto t0 = std::chrono::steady_clock::now();
  run_iters(g, op, count, iters);
  sync_all(g);
  return mean_over_ranks(g, std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / iters);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// One size: warm-up, then `batches` timed batches of `iters` launches; the median batch's time
// per launch (us). Sets *size_bytes to the size column's value; false when the size is too
// small for this collective.
bool time_size(Ranks& g, const Op& op, size_t bytes, int warmup, int iters, int batches, size_t* size_bytes, double* us) {
  const size_t split = per_rank_count(op.coll) ? static_cast<size_t>(g.world) : 1;
  const size_t count = bytes / sizeof(float) / split;
  if (count == 0) return false;
  // max(send, recv) of one rank; the algbw numerator is the same for every collective here.
  *size_bytes = count * sizeof(float) * split;
  run_iters(g, op, count, warmup);
  sync_all(g);
  std::vector<double> times;
  for (int b = 0; b < batches; ++b) times.push_back(time_batch(g, op, count, iters));
  *us = median(times);
  return true;
}

void print_row(const Ranks& g, const Op& op, const std::string& prefix, size_t size_bytes, double t) {
  if (g.first != 0) return;  // one process per GPU: rank 0 speaks for the operation
  const int gpus = g.world;
  const double algbw = static_cast<double>(size_bytes) / t / 1e3;  // bytes/us -> GB/s
  std::printf("%s%zu,%.2f,%.2f,%.2f\n", prefix.c_str(), size_bytes, t, algbw, algbw * bus_factor(op.coll, gpus));
  std::fflush(stdout);
}

// One CSV row per size (`prefix` before each: the A/B side and round, or nothing).
void measure(Ranks& g, const Op& op, const std::vector<size_t>& sizes, int warmup, int iters, int batches, const std::string& prefix) {
  for (size_t bytes : sizes) {
    size_t size_bytes = 0;
    double t = 0;
    if (time_size(g, op, bytes, warmup, iters, batches, &size_bytes, &t)) print_row(g, op, prefix, size_bytes, t);
  }
}

// The A/B mode (--ab-env NAME=VALUE ... --ab-rounds R): 2R rounds in one process, ABBA order
// (off, on, on, off, ...), each with communicators created and destroyed, the variables set for
// "on" rounds and unset for "off" ones. NCCL reads NCCL_PROFILER_PLUGIN when it loads the
// plugin, which it unloads with the last communicator, so a plugin can be compared with none
// without the spread between processes (processes land in faster or slower modes).
void run_ab(const Op& op, const std::vector<size_t>& sizes, int gpus, bool zero, int warmup, int iters, int batches,
            const std::vector<std::string>& env, int rounds) {
  std::printf("side,round,size_bytes,time_us,algbw_GBps,busbw_GBps\n");
  const Procs single{};
  const size_t max_bytes = *std::max_element(sizes.begin(), sizes.end());
  for (int k = 0; k < 2 * rounds; ++k) {
    const bool on = k % 4 == 1 || k % 4 == 2;
    for (const std::string& kv : env) {
      const std::string name = kv.substr(0, kv.find('='));
      if (on) setenv(name.c_str(), kv.substr(kv.find('=') + 1).c_str(), 1);
      else unsetenv(name.c_str());
    }
    Ranks g;
    set_up(g, gpus, max_bytes, zero, single);
    measure(g, op, sizes, warmup, iters, batches, std::string(on ? "on," : "off,") + std::to_string(k / 2 + 1) + ",");
    tear_down(g);
  }
}

// The switch mode (--ab-events WORD --ab-rounds R): one set of communicators throughout, the
// profiler plugin named by NCCL_PROFILER_PLUGIN switched between WORD ("on") and "off" through
// the switch it exports for jobs (int cctune_profiler_events(const char*), docs/WORKLOAD.md).
// Per size, R rounds; in each, the timed batches alternate between the sides (off, on, then
// on, off, ...), each side's row the median of its batches. The two sides of a round share the
// same milliseconds, communicators and buffers, so a shared host's changes of pace fall on both.
// NCCL reads the plugin's mask as each call starts: a batch's first call already runs under
// its side's setting.
// One process per GPU (--rank): every process switches its own plugin at the same batches.
void run_switch(const Op& op, const std::vector<size_t>& sizes, int gpus, bool zero, int warmup, int iters, int batches,
                const std::string& word, int rounds, const Procs& procs) {
  Ranks g;
  set_up(g, gpus, *std::max_element(sizes.begin(), sizes.end()), zero, procs);  // NCCL loads the plugin here
  const char* path = std::getenv("NCCL_PROFILER_PLUGIN");
  void* lib = path ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : nullptr;
  using Switch = int (*)(const char*);
  auto events = lib ? reinterpret_cast<Switch>(dlsym(lib, "cctune_profiler_events")) : nullptr;
  if (!events) {
    std::fprintf(stderr, "ref_collectives: --ab-events needs NCCL_PROFILER_PLUGIN naming a loaded library with cctune_profiler_events (%s)\n",
                 path ? path : "unset");
    std::exit(1);
  }
  auto side = [&](bool on) {
    const int rc = events(on ? word.c_str() : "off");
    if (rc != 0) {
      std::fprintf(stderr, "ref_collectives: cctune_profiler_events(\"%s\") returned %d (is CCTUNE_WORKLOAD set?)\n", on ? word.c_str() : "off", rc);
      std::exit(1);
    }
  };
  const size_t split = per_rank_count(op.coll) ? static_cast<size_t>(g.world) : 1;
  if (g.first == 0) std::printf("side,round,size_bytes,time_us,algbw_GBps,busbw_GBps\n");
  for (size_t bytes : sizes) {
    const size_t count = bytes / sizeof(float) / split;
    if (count == 0) continue;
    const size_t size_bytes = count * sizeof(float) * split;
    for (bool on : {false, true}) {
      side(on);
      run_iters(g, op, count, warmup);
    }
    sync_all(g);
    for (int k = 0; k < rounds; ++k) {
      std::vector<double> times[2];
      for (int b = 0; b < batches; ++b)
        for (int j = 0; j < 2; ++j) {
          const bool on = (b + j) % 2 == 1;  // off, on | on, off | off, on ...
          side(on);
          times[on].push_back(time_batch(g, op, count, iters));
        }
      for (int on = 0; on < 2; ++on)
        print_row(g, op, std::string(on ? "on," : "off,") + std::to_string(k + 1) + ",", size_bytes, median(times[on]));
    }
  }
  tear_down(g);
  dlclose(lib);
}

}  // namespace

int main(int argc, char** argv) {
  int gpus = 0, warmup = 5, iters = 20, batches = 5;
  bool zero = false;
  int ab_rounds = 0;
  std::vector<std::string> ab_env;
  std::string ab_events;
  Procs procs;
  Op op;
  std::vector<size_t> sizes;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto text = [&] { if (i + 1 >= argc) usage(); return std::string(argv[++i]); };
    auto next = [&] { return std::atoi(text().c_str()); };
    if (a == "--coll") {
      const std::string c = text();
      bool known = false;
      for (int k = 0; k < 9; ++k)
        if (c == kNames[k]) op.coll = static_cast<Coll>(k), known = true;
      if (!known) usage();
    } else if (a == "--impl") {
      const std::string v = text();
      if (v != "native" && v != "grouped") usage();
      op.native = v == "native";
    } else if (a == "--in-place") op.in_place = true;
    else if (a == "--gpus") gpus = next();
    else if (a == "--rank") procs.rank = next();
    else if (a == "--nranks") procs.nranks = next();
    else if (a == "--id-file") procs.id_file = text();
    else if (a == "-w") warmup = next();
    else if (a == "-n") iters = next();
    else if (a == "-r") batches = next();
    else if (a == "--zero") zero = true;
    else if (a == "--ab-env") {
      ab_env.push_back(text());
      if (ab_env.back().find('=') == std::string::npos || ab_env.back().front() == '=') usage();
    } else if (a == "--ab-events") ab_events = text();
    else if (a == "--ab-rounds") ab_rounds = next();
    else if (!a.empty() && a[0] != '-') sizes.push_back(std::strtoull(a.c_str(), nullptr, 10));
    else usage();
  }
  const bool ab = !ab_env.empty() || !ab_events.empty();
  if (sizes.empty() || iters < 1 || batches < 1 || ab_rounds < 0 || (ab_rounds > 0) != ab || (!ab_env.empty() && !ab_events.empty()))
    usage();
  if (op.in_place && (op.coll == Coll::AllToAll || op.coll == Coll::SendRecv)) {
    std::fprintf(stderr, "ref_collectives: in-place %s is not measured\n", kNames[static_cast<int>(op.coll)]);
    return 2;
  }
  if (op.native && !native_present(op.coll)) {
    std::fprintf(stderr, "ref_collectives: the loaded NCCL has no native %s (NCCL 2.28 added it)\n", kNames[static_cast<int>(op.coll)]);
    return 3;
  }
  int visible = 0;
  CHECK_CUDA(cudaGetDeviceCount(&visible));
  if (gpus <= 0 || gpus > visible) gpus = visible;
  const bool multi = procs.rank >= 0 || procs.nranks > 0 || !procs.id_file.empty();
  if (multi && (procs.nranks < 2 || procs.rank < 0 || procs.rank >= procs.nranks || procs.id_file.empty())) {
    std::fprintf(stderr, "ref_collectives: one process per GPU needs --rank R --nranks N --id-file PATH with 0 <= R < N, N >= 2\n");
    return 2;
  }
  if (multi && procs.nranks > visible) {
    std::fprintf(stderr, "ref_collectives: --nranks %d but %d GPU(s) visible: one process per GPU\n", procs.nranks, visible);
    return 2;
  }
  if (multi && !ab_env.empty()) {
    std::fprintf(stderr, "ref_collectives: --ab-env runs in one process; drop --rank/--nranks/--id-file\n");
    return 2;
  }

  if (!ab_events.empty()) {
    run_switch(op, sizes, gpus, zero, warmup, iters, batches, ab_events, ab_rounds, procs);
    return 0;
  }
  if (ab_rounds > 0) {
    run_ab(op, sizes, gpus, zero, warmup, iters, batches, ab_env, ab_rounds);
    return 0;
  }
  Ranks g;
  set_up(g, gpus, *std::max_element(sizes.begin(), sizes.end()), zero, procs);
  if (g.first == 0) std::printf("size_bytes,time_us,algbw_GBps,busbw_GBps\n");  // rank 0 speaks for the operation
  measure(g, op, sizes, warmup, iters, batches, "");
  tear_down(g);
  return 0;
}
