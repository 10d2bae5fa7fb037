// Host time the profiler half adds per call NCCL records, measured where a GPU run cannot: NCCL
// runs a one-rank communicator on a path that emits no profiler events, so on one GPU
// bench/profiler_overhead.sh compares a loaded, idle profiler with none. This drives the
// shipped libnccl-tuner-cctune.so (dlopen + ncclProfiler_v5, as NCCL does) with the events NCCL
// 2.28 issues for one recorded call, as the plugin's event mask asks for them: every call's
// group and collective (or p2p) API events on the launching thread; for the calls it follows
// (about one in CCTUNE_WORKLOAD_TIMING_EVERY, default 100) also the Coll (or P2p) task event, started
// and stopped on the launching thread, then one kernel-channel event per channel, started,
// stopped by its globaltimer state and stopped again on the proxy thread. The shape is already
// in the table (steady state of a training loop); BM_NewShape times a call whose shape the
// table has not seen, BM_FollowedCall one that is followed.
//   profiler_events_bench [google-benchmark flags]
// CCTUNE_PLUGIN_SO names the library (default: ../lib/libnccl-tuner-cctune.so beside this
// program, the build tree's and the GPU bundle's layout). The profiler writes its file into a
// fresh temporary folder, removed at exit.
#include <benchmark/benchmark.h>
#include <dlfcn.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <ctime>
#include <string>
#include <vector>

#include "profiler_driver.hpp"

namespace {

using cctune::tuner::testing::ProfilerDriver;
namespace abi = cctune::nccl_abi;
namespace fs = std::filesystem;

void quiet(int, unsigned long, const char*, int, const char*, ...) {}

std::string plugin_path() {
  if (const char* p = std::getenv("CCTUNE_PLUGIN_SO")) return p;
  return (fs::read_symlink("/proc/self/exe").parent_path().parent_path() / "lib" / "libnccl-tuner-cctune.so").string();
}

struct Recording {
  std::string dir;
  ProfilerDriver driver;

  Recording() {
    char tmpl[] = "/tmp/cctune-profiler-events.XXXXXX";
    if (!mkdtemp(tmpl)) std::_Exit(2);
    dir = tmpl;
    setenv("CCTUNE_WORKLOAD", dir.c_str(), 1);
    setenv("CCTUNE_WORKLOAD_INTERVAL", "0", 1);
    const std::string so = plugin_path();
    void* lib = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
    const auto* v5 = lib ? static_cast<const abi::ProfilerV5*>(dlsym(lib, "ncclProfiler_v5")) : nullptr;
    if (!v5) {
      std::fprintf(stderr, "profiler_events_bench: cannot load ncclProfiler_v5 from %s (%s); set CCTUNE_PLUGIN_SO\n", so.c_str(),
                   lib ? "no such symbol" : dlerror());
      std::_Exit(2);
    }
    driver.plugin = v5;
    if (!driver.init(0xbe9c, 1, 8, 0, quiet) || !driver.context) {
      std::fprintf(stderr, "profiler_events_bench: the profiler half did not start recording in %s\n", dir.c_str());
      std::_Exit(2);
    }
  }
  ~Recording() {
    driver.finalize();
    fs::remove_all(dir);
  }
};

Recording& recording() {
  static Recording r;
  return r;
}

// One AllReduce as NCCL records it, on state.range(0) channels; 8 MiB of float. The plugin's
// defaults follow one call in 100 on average and at most one per 10 ms, so in this fast loop
// almost none: BM_FollowedCall times those.
void BM_Collective(benchmark::State& state) {
  ProfilerDriver& d = recording().driver;
  const int channels = static_cast<int>(state.range(0));
  std::uint64_t t = 1'000'000;
  for (auto _ : state) {
    d.timed_collective("AllReduce", 2u << 20, "ncclFloat32", t, 50'000, channels);
    t += 100'000;
  }
  state.SetLabel(std::to_string(channels) + " channels");
}
BENCHMARK(BM_Collective)->Arg(1)->Arg(2)->Arg(8);

// The launching thread's part alone, everything NCCL 2.28 sends it for one lone AllReduce: the
// call's group API event (opened, its two states, closed: the sampler runs here), the
// collective API event (the call is counted here) and, for a followed call, the Coll event
// started and stopped at enqueue.
void BM_CollectiveLaunchThread(benchmark::State& state) {
  ProfilerDriver& d = recording().driver;
  for (auto _ : state) d.collective("AllReduce", 2u << 20, "ncclFloat32", "Ring", "Simple", 2);
}
BENCHMARK(BM_CollectiveLaunchThread);

// The same, with the caches as a launch leaves them. Between two calls a job runs NCCL's
// enqueue, the CUDA driver's launch and its own code, which push the plugin's code and data out
// of the core's near caches; the warm loop above never sees that cost, the GPU runs do. Before
// each call this walks state.range(0) bytes of its own (64 KiB: past L1; 4 MiB: past L2), then
// times the one call alone (manual time, the clock's own cost included: compare it with
// BM_ColdClockOnly of the same run).
class Evictor {
 public:
  explicit Evictor(std::size_t bytes) : words_(bytes / sizeof(std::uint64_t), 0) {}
  void run() {
    for (std::size_t i = 0; i < words_.size(); i += 8) benchmark::DoNotOptimize(words_[i] += 1);  // one word per 64-byte line
  }

 private:
  std::vector<std::uint64_t> words_;
};

std::uint64_t now_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<std::uint64_t>(t.tv_sec) * 1'000'000'000ull + static_cast<std::uint64_t>(t.tv_nsec);
}

void BM_ColdLaunchThread(benchmark::State& state) {
  ProfilerDriver& d = recording().driver;
  Evictor evict(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    evict.run();
    const std::uint64_t t0 = now_ns();
    d.collective("AllReduce", 2u << 20, "ncclFloat32", "Ring", "Simple", 2);
    state.SetIterationTime(static_cast<double>(now_ns() - t0) * 1e-9);
  }
}
// Fixed iterations: manual time counts only the timed call, so a time goal would walk for minutes.
BENCHMARK(BM_ColdLaunchThread)->Arg(64 << 10)->Arg(4 << 20)->UseManualTime()->Iterations(20000);

void BM_ColdClockOnly(benchmark::State& state) {
  Evictor evict(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    evict.run();
    const std::uint64_t t0 = now_ns();
    state.SetIterationTime(static_cast<double>(now_ns() - t0) * 1e-9);
  }
}
BENCHMARK(BM_ColdClockOnly)->Arg(64 << 10)->Arg(4 << 20)->UseManualTime()->Iterations(20000);

// A followed call, as if every call were (CCTUNE_WORKLOAD_TIMING_EVERY=1): NCCL is made to
// deliver the task event and the kernel channels whatever the plugin's mask says.
void BM_FollowedCall(benchmark::State& state) {
  ProfilerDriver& d = recording().driver;
  constexpr int every_event = ProfilerDriver::api_events | abi::kProfileColl | abi::kProfileP2p | abi::kProfileKernelCh;
  std::uint64_t t = 1'000'000;
  for (auto _ : state) {
    __atomic_store_n(&d.mask, every_event, __ATOMIC_RELAXED);
    d.timed_collective("AllReduce", 2u << 20, "ncclFloat32", t, 50'000, 2);
    t += 100'000;
  }
}
BENCHMARK(BM_FollowedCall);

// Three AllReduces in one ncclGroupStart/End (as PyTorch's coalescing manager issues them), per
// group: the group is recorded when it closes.
void BM_GroupOfThreeLaunchThread(benchmark::State& state) {
  ProfilerDriver& d = recording().driver;
  for (auto _ : state) {
    void* group = d.group_start(2);
    void* api[3];
    int i = 0;
    for (std::size_t n : {131072u, 32768u, 8192u}) api[i++] = d.coll_api(group, "AllReduce", n, "ncclFloat32");
    i = 0;
    for (std::size_t n : {131072u, 32768u, 8192u}) d.stop(d.task_collective(api[i++], "AllReduce", n, "ncclFloat32", "Ring", "LL", 2, 0));
    d.group_stop(group);
  }
}
BENCHMARK(BM_GroupOfThreeLaunchThread);

// One Send as NCCL records it (its host event; kernel channels as for a collective).
void BM_Send(benchmark::State& state) {
  ProfilerDriver& d = recording().driver;
  for (auto _ : state) d.p2p("Send", 1u << 20, "ncclInt8", 1);
}
BENCHMARK(BM_Send);

// A shape the table has not seen: its first call inserts it (the table holds 4096 shapes, so
// this runs 4000 calls on a fresh communicator each time round).
void BM_NewShape(benchmark::State& state) {
  static std::uint64_t comm = 0x5000;
  for (auto _ : state) {
    state.PauseTiming();
    ProfilerDriver d{recording().driver.plugin};
    d.init(++comm, 1, 8, 0, quiet);
    state.ResumeTiming();
    for (std::size_t i = 1; i <= 4000; ++i) d.timed_collective("AllReduce", i, "ncclFloat32", i * 100'000, 50'000, 2);
    state.PauseTiming();
    d.finalize();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * 4000);
}
BENCHMARK(BM_NewShape)->Unit(benchmark::kMicrosecond)->Iterations(20);

}  // namespace

BENCHMARK_MAIN();
