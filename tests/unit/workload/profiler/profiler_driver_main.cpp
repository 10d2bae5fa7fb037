// A stand-in for NCCL's side of the profiler interface, linked with the profiler half's
// sources (built with ThreadSanitizer where the compiler has it):
//   profiler_driver threads   32 threads on 4 communicators, events interleaved, periodic
//                             writes on; exits 1 when the file's call counts are not theirs
//   profiler_driver rank R    rank R of a 2-rank communicator, for the output check (schema,
//                             cctune workload merge)
// CCTUNE_WORKLOAD (and _INTERVAL) come from the caller.
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "profiler_driver.hpp"
#include "workload/workload_json.hpp"

using cctune::tuner::testing::ProfilerDriver;

namespace {

void quiet_logger(int level, unsigned long, const char*, int, const char* fmt, ...) {
  if (level <= cctune::nccl_abi::kLogWarn) std::fprintf(stderr, "plugin warned (%s)\n", fmt);
}

// workload.<host>.<pid>.<tag>.json: the tag is the plugin's random draw, so the file is found.
std::string own_file() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  std::string h;
  for (const char* c = host; *c; ++c) h.push_back(std::isalnum(static_cast<unsigned char>(*c)) || *c == '-' || *c == '.' || *c == '_' ? *c : '_');
  const std::string prefix = "workload." + h + "." + std::to_string(getpid()) + ".";
  for (const auto& e : std::filesystem::directory_iterator(std::getenv("CCTUNE_WORKLOAD")))
    if (e.path().filename().string().rfind(prefix, 0) == 0) return e.path().string();
  return "";
}

int threads() {
  constexpr int n_threads = 32, n_comms = 4, iterations = 2000;
  std::vector<ProfilerDriver> comms(n_comms, ProfilerDriver{&ncclProfiler_v5});
  for (int c = 0; c < n_comms; ++c)
    if (!comms[c].init(0x100 + c, 1, n_threads / n_comms, 0, quiet_logger) || !comms[c].context) return 1;
  std::atomic<bool> go{false};
  std::vector<std::thread> pool;
  for (int t = 0; t < n_threads; ++t)
    pool.emplace_back([&, t] {
      while (!go.load()) std::this_thread::yield();
      ProfilerDriver& d = comms[t % n_comms];
      for (int i = 0; i < iterations; ++i) {
        const std::size_t count = 1 + static_cast<std::size_t>((t * 7 + i) % 300);  // shared shapes
        if (i % 3 == 0) d.p2p(i % 2 ? "Send" : "Recv", count, "ncclInt8", t % 8);
        else d.timed_collective("AllReduce", count, "ncclFloat16", 1000000ull * (i + 1), 20000 + 10u * t, 1 + t % 4);
        if (i % 5 == 0) {  // a group of two, from this thread's API events, on a shared communicator
          void* g = d.group_start();
          d.coll_api(g, "AllReduce", 64, "ncclFloat16");
          d.coll_api(g, "ReduceScatter", 32, "ncclFloat16");
          d.group_stop(g);
        }
      }
    });
  go = true;
  for (auto& th : pool) th.join();
  for (auto& c : comms)
    if (!c.finalize()) return 1;
  std::ifstream in(own_file());
  const auto w = cctune::workload::workload_from_json(nlohmann::json::parse(in));
  std::uint64_t calls = 0, groups = 0;
  for (const auto& c : w.communicators) {
    for (const auto& s : c.calls) calls += s.calls;
    for (const auto& g : c.groups) groups += g.calls;
  }
  const std::uint64_t groups_issued = std::uint64_t(n_threads) * ((iterations + 4) / 5);
  const std::uint64_t calls_issued = std::uint64_t(n_threads) * iterations + 2 * groups_issued;
  if (w.communicators.size() != n_comms || calls != calls_issued || groups != groups_issued) {
    std::fprintf(stderr, "file holds %zu communicators, %llu calls and %llu groups\n", w.communicators.size(), (unsigned long long)calls,
                 (unsigned long long)groups);
    return 1;
  }
  return 0;
}

int rank(int r) {
  setenv("CCTUNE_WORKLOAD_TIMING_EVERY", "1", 1);  // every call followed: GPU times and applied choices in the file
  ProfilerDriver d{&ncclProfiler_v5};
  if (!d.init(0x1234, 1, 2, r, quiet_logger) || !d.context) return 1;
  for (int i = 0; i < 5; ++i) d.timed_collective("AllReduce", 1 << 20, "ncclFloat32", 5000000ull * (i + 1), 300000 + 1000u * r);
  for (int i = 0; i < 2; ++i) d.collective("AllGather", 4096, "ncclBfloat16", "Ring", "LL128", 4);
  for (int i = 0; i < 3; ++i) d.p2p(r == 0 ? "Send" : "Recv", 1000, "ncclFloat32", 1 - r);
  for (int i = 0; i < 2; ++i) {  // so the schema check and the merge see a group
    void* g = d.group_start();
    void* ar = d.coll_api(g, "AllReduce", 1 << 20, "ncclFloat32");
    void* ag = d.coll_api(g, "AllGather", 4096, "ncclBfloat16");
    d.stop(d.task_collective(ar, "AllReduce", 1 << 20, "ncclFloat32", "Ring", "Simple", 2, 0));
    d.stop(d.task_collective(ag, "AllGather", 4096 * 2, "ncclInt8", "Ring", "LL128", 4, 0));  // NCCL's view: bytes
    d.group_stop(g);
  }
  return d.finalize() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "threads") return threads();
  if (mode == "rank" && argc > 2) return rank(std::atoi(argv[2]));
  std::fprintf(stderr, "usage: profiler_driver threads | rank R\n");
  return 2;
}
