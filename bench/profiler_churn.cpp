// What communicator churn costs a job with the profiler half loaded: one communicator that
// lives throughout (as a job's default one does) and N more created, given 20 calls of
// distinct sizes and destroyed one after another (a job that splits communicators per phase
// or step). NCCL calls the profiler's finalize inside ncclCommDestroy, so its time is a
// stall the job sees. Prints the finalize time of the first and last destroy and the mean of
// each fifth, the whole run's time, the last finalize (the long-lived communicator's, which
// writes the file), the file's size and the peak RSS.
//   profiler_churn PLUGIN_SO N          (CCTUNE_WORKLOAD and CCTUNE_WORKLOAD_INTERVAL from the caller)
// The library is loaded as NCCL loads it (dlopen, ncclProfiler_v5) and driven with the events
// NCCL 2.28 sends (tests/unit/workload/profiler/profiler_driver.hpp).
#include <dirent.h>
#include <dlfcn.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "profiler_driver.hpp"

namespace {

using cctune::tuner::testing::ProfilerDriver;
using Clock = std::chrono::steady_clock;

void quiet(int, unsigned long, const char*, int, const char*, ...) {}

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

// The size of the workload files in `dir` (one per process: this one's).
long long workload_bytes(const char* dir) {
  long long total = 0;
  DIR* d = opendir(dir);
  if (!d) return -1;
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    struct stat st {};
    if (name.rfind("workload.", 0) == 0 && stat((std::string(dir) + "/" + name).c_str(), &st) == 0) total += st.st_size;
  }
  closedir(d);
  return total;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 || std::atoi(argv[2]) < 5 || !std::getenv("CCTUNE_WORKLOAD")) {
    std::fprintf(stderr, "usage: CCTUNE_WORKLOAD=DIR profiler_churn PLUGIN_SO N   (N >= 5)\n");
    return 2;
  }
  void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  const auto* plugin = lib ? static_cast<const cctune::nccl_abi::ProfilerV5*>(dlsym(lib, "ncclProfiler_v5")) : nullptr;
  if (!plugin) {
    std::fprintf(stderr, "profiler_churn: %s has no ncclProfiler_v5 (%s)\n", argv[1], lib ? "" : dlerror());
    return 2;
  }
  const int n = std::atoi(argv[2]);
  ProfilerDriver keep{plugin};
  if (!keep.init(0x1, 1, 2, 0, quiet) || !keep.context) {
    std::fprintf(stderr, "profiler_churn: the plugin records nothing (is CCTUNE_WORKLOAD a writable directory?)\n");
    return 1;
  }
  keep.collective("AllReduce", 1 << 20, "ncclFloat32", "Ring", "Simple", 2);
  const Clock::time_point start = Clock::now();
  const int fifth = n / 5;
  double batch_ms = 0, first_ms = 0, last_ms = 0;
  for (int i = 0; i < n; ++i) {
    ProfilerDriver c{plugin};
    c.init(0x100000 + static_cast<std::uint64_t>(i), 1, 2, 0, quiet);
    for (int k = 0; k < 20; ++k) c.collective("AllReduce", 1024 + static_cast<std::size_t>(k), "ncclFloat32", "Ring", "LL", 1);
    const Clock::time_point t = Clock::now();
    c.finalize();
    const double ms = ms_since(t);
    batch_ms += ms;
    if (i == 0) first_ms = ms;
    last_ms = ms;
    if ((i + 1) % fifth == 0) {
      std::printf("destroys %6d-%6d: finalize mean %8.3f ms\n", i + 2 - fifth, i + 1, batch_ms / fifth);
      batch_ms = 0;
    }
  }
  const double total_s = ms_since(start) / 1000.0;
  const Clock::time_point t = Clock::now();
  keep.finalize();
  const double keep_ms = ms_since(t);
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  std::printf("first destroy %.3f ms, last destroy %.3f ms, %d destroys in %.2f s; last communicator's finalize %.1f ms; "
              "file %lld bytes; peak RSS %ld KiB\n",
              first_ms, last_ms, n, total_s, keep_ms, workload_bytes(std::getenv("CCTUNE_WORKLOAD")), ru.ru_maxrss);
  return 0;
}
