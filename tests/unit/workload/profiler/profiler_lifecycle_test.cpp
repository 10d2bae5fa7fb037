// The profiler half of libnccl-tuner-cctune.so over a process's life: forks, and
// communicators created and destroyed over and over (the reliability review of 2026-11-27,
// N3 and N13). Loaded and driven as profiler_so_test.cpp does.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdarg>
#include <cstring>
#include <fstream>
#include <thread>

#include "profiler_so_support.hpp"

namespace cctune::tuner {
namespace {

using namespace scenario;
using namespace so_support;

std::uint64_t calls_of(const workload::Communicator& c) {
  std::uint64_t n = 0;
  for (const workload::CallStats& s : c.calls) n += s.calls;
  return n;
}

const workload::Communicator* find_comm(const workload::Workload& w, const std::string& id) {
  for (const workload::Communicator& c : w.communicators)
    if (c.id == id) return &c;
  return nullptr;
}

// Waits for `child` up to `seconds`; kills it and returns -1 if it is still running then.
int wait_or_kill(pid_t child, int seconds) {
  for (int i = 0; i < seconds * 100; ++i) {
    int status = 0;
    if (waitpid(child, &status, WNOHANG) == child) return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
    usleep(10000);
  }
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  return -1;
}

// A child forked after the first calls, exiting normally (static destructors run) after its
// parent wrote 1000 calls, must leave the parent's file as it is: the child's copy of the
// records holds 5. Before the fork handler the child wrote its 5 over the parent's 1000.
TEST(ProfilerLifecycle, ForkedChildLeavesItsParentsFileAlone) {
  RUN_SCENARIO({
    const std::string dir = fresh_dir("fork");
    use_workload(dir);
    auto d = driver();
    SCENARIO_CHECK(d.init(0xf0f0, 1, 2, 0, testing::capture_logger) && d.context);
    for (int i = 0; i < 5; ++i) d.collective("AllReduce", 1024, "ncclFloat32", "Ring", "LL", 1);
    int go[2];
    SCENARIO_CHECK(pipe(go) == 0);
    const pid_t child = fork();
    if (child == 0) {  // a helper process that never calls NCCL, and outlives its parent's write
      char byte = 0;
      close(go[1]);
      (void)!read(go[0], &byte, 1);
      std::exit(0);
    }
    close(go[0]);
    for (int i = 0; i < 995; ++i) d.collective("AllReduce", 1024, "ncclFloat32", "Ring", "LL", 1);
    SCENARIO_CHECK(d.finalize());  // the last communicator: written
    const std::string file = own_file(dir);
    SCENARIO_CHECK(calls_of(read_workload(file).communicators.at(0)) == 1000);
    close(go[1]);  // the child goes on and exits
    SCENARIO_CHECK(wait_or_kill(child, 20) == 0);
    SCENARIO_CHECK(workload_files(dir).size() == 1);
    SCENARIO_CHECK(calls_of(read_workload(file).communicators.at(0)) == 1000);
  });
}

std::atomic<int> logger_stage{0};  // 1: a watch warning is being logged (the sink's lock held); 2: forked

void blocking_logger(int level, unsigned long, const char*, int, const char* fmt, ...) {
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (level > nccl_abi::kLogWarn || !std::strstr(line, "cctune watch")) return;
  logger_stage = 1;
  while (logger_stage.load() != 2) std::this_thread::yield();
}

// A fork while another thread is inside the sink's lock (here: logging the production
// watch's warning during a write): the child inherits the lock held, by a thread it does not
// have. Its exit must neither wait for that lock nor write. Before the fork handler it hung.
TEST(ProfilerLifecycle, ForkedChildExitsThoughALockWasHeldAtTheFork) {
  RUN_SCENARIO({
    use_profile("watch_profile.json");
    const std::string dir = fresh_dir("fork-locked");
    use_workload(dir);
    setenv("CCTUNE_WORKLOAD_TIMING_EVERY", "1", 1);
    auto d = driver();
    SCENARIO_CHECK(d.init(0xfeed, 1, 8, 2, blocking_logger) && d.context);
    const double slow_ns = 4194304.0 / (25.0 / 1.75);  // a quarter of the profile's busbw: a finding
    for (int i = 0; i < 20; ++i)
      d.timed_collective("AllReduce", 1048576, "ncclFloat32", 1000000000ull * (i + 1), static_cast<std::uint64_t>(slow_ns), 1);
    std::thread destroyer([&] { d.finalize(); });  // writes, and logs the finding with the lock held
    while (logger_stage.load() != 1) std::this_thread::yield();
    const pid_t child = fork();
    if (child == 0) std::exit(0);  // static destructors: the exit hook
    logger_stage = 2;
    destroyer.join();
    SCENARIO_CHECK(wait_or_kill(child, 20) == 0);
    SCENARIO_CHECK(workload_files(dir).size() == 1);
    SCENARIO_CHECK(calls_of(*find_comm(read_workload(own_file(dir)), "0xfeed")) == 20);
  });
}

// NCCL's logger as the exit hook meets it: a plain function (capture_logger's store is a static
// of this program, destroyed before a library's exit hook runs).
void stderr_logger(int, unsigned long, const char*, int, const char* fmt, ...) {
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  const int n = std::vsnprintf(line, sizeof line - 1, fmt, ap);
  va_end(ap);
  if (n <= 0) return;
  const std::size_t len = std::min(static_cast<std::size_t>(n), sizeof line - 2);
  line[len] = '\n';
  (void)!write(2, line, len + 1);
}

// A profile with no rule and NCCL's defaults measured at two sizes (8 ranks, one node).
std::string baseline_profile(const std::string& dir) {
  std::ifstream in(kFixtures + "watch_profile.json");
  nlohmann::json p = nlohmann::json::parse(in);
  p["env"] = nlohmann::json::object();
  p["rules"] = nlohmann::json::array();
  p["measured_baseline"] = {
      {{"collective", "allreduce"}, {"nranks", 8}, {"nnodes", 1}, {"size_bytes", 1048576}, {"time_us", 30.6}, {"busbw_GBps", 60.0}},
      {{"collective", "allreduce"}, {"nranks", 8}, {"nnodes", 1}, {"size_bytes", 4194304}, {"time_us", 73.4}, {"busbw_GBps", 100.0}}};
  const std::string path = dir + "/baseline_profile.json";
  std::ofstream(path) << p.dump(1);
  return path;
}

// A job that never destroys its communicator is written by the exit hook, among the static
// destructors. The watch there judged against the process-wide profile, a function-local
// static destroyed before the hook ran: its first baseline entry, in freed memory, no longer
// matched, so a one-channel DDP job on 2 x H200 warned for two shapes in NCCL's log and its
// file recorded one. Both shapes run at a quarter of the baseline: two findings in the file.
TEST(ProfilerLifecycle, TheExitWriteJudgesAgainstTheWholeProfile) {
  RUN_SCENARIO({
    const std::string dir = fresh_dir("exit-watch");
    setenv("CCTUNE_PROFILE", baseline_profile(dir).c_str(), 1);
    unsetenv("CCTUNE_TOPOLOGY_FINGERPRINT");
    use_workload(dir + "/files");
    fs::create_directories(dir + "/files");
    setenv("CCTUNE_WORKLOAD_TIMING_EVERY", "1", 1);
    const pid_t child = fork();
    if (child == 0) {  // the job: the plugin's first use is here, so the sink and its file are this process's
      auto d = driver();
      if (!d.init(0xfeed, 1, 8, 2, stderr_logger)) std::_Exit(5);
      const auto one_mib_ns = static_cast<std::uint64_t>(1048576.0 / (15.0 / 1.75));  // busbw 15 GB/s: ns = bytes / (GB/s)
      const auto four_mib_ns = static_cast<std::uint64_t>(4194304.0 / (25.0 / 1.75));
      for (int i = 0; i < 20; ++i) {
        const std::uint64_t start = 1000000000ull * (i + 1);
        d.timed_collective("AllReduce", 262144, "ncclFloat32", start, one_mib_ns, 1);
        d.timed_collective("AllReduce", 1048576, "ncclFloat32", start + 500000000ull, four_mib_ns, 1);
      }
      std::exit(0);  // no finalize: the exit hook writes
    }
    SCENARIO_CHECK(wait_or_kill(child, 20) == 0);
    const std::vector<std::string> files = workload_files(dir + "/files");
    SCENARIO_CHECK(files.size() == 1);
    const workload::Workload w = read_workload(files.at(0));
    const workload::Communicator* c = find_comm(w, "0xfeed");
    SCENARIO_CHECK(c && c->watch.size() == 2);
    for (const workload::WatchFinding& f : c->watch) {
      SCENARIO_CHECK(f.reference == workload::WatchReference::Baseline && f.profile_bytes == f.bytes);
      SCENARIO_CHECK(f.shortfall > 0.65 && f.shortfall < 0.85);
    }
  });
}

// A job that keeps one communicator and creates and destroys others: a destroy while another
// communicator lives writes nothing (it used to rewrite the whole file, a growing stall); the
// last one's destroy writes them all. Lifetimes of one communicator on this rank are one record.
TEST(ProfilerLifecycle, DestroysWhileOthersLiveAreWrittenLaterAndCoalesced) {
  RUN_SCENARIO({
    const std::string dir = fresh_dir("churn");
    use_workload(dir);
    auto keep = driver();
    SCENARIO_CHECK(keep.init(0x1, 1, 2, 0, testing::capture_logger) && keep.context);
    keep.collective("AllGather", 8, "ncclInt8", "Ring", "LL", 1);
    for (int i = 0; i < 60; ++i) {
      auto c = driver();
      SCENARIO_CHECK(c.init(0x100 + i % 20, 1, 2, 0, testing::capture_logger) && c.context);  // 20 ids, 3 lifetimes each
      for (int k = 0; k < 5; ++k) c.collective("AllReduce", 1024 + k, "ncclFloat32", "Ring", "LL", 1);
      SCENARIO_CHECK(c.finalize());
      SCENARIO_CHECK(workload_files(dir).empty());  // CCTUNE_WORKLOAD_INTERVAL=0 and one still live
    }
    SCENARIO_CHECK(keep.finalize());
    const workload::Workload w = read_workload(own_file(dir));
    SCENARIO_CHECK(w.communicators.size() == 21);
    for (int i = 0; i < 20; ++i) {
      char id[16];
      std::snprintf(id, sizeof id, "0x%x", 0x100 + i);
      const workload::Communicator* c = find_comm(w, id);
      SCENARIO_CHECK(c && c->calls.size() == 5 && c->ranks == std::vector<int>{0});
      for (const workload::CallStats& s : c->calls) SCENARIO_CHECK(s.calls == 3);
    }
    SCENARIO_CHECK(testing::count_level(nccl_abi::kLogWarn) == 0);
  });
}

// Finished communicators are capped: past FinishedComms::default_max_records (4096) the one
// with the fewest calls is not kept; one warning says so, and the file stays the cap's size.
// The job's main communicator, destroyed last with the most calls, is kept.
TEST(ProfilerLifecycle, FinishedCommunicatorsAreCapped) {
  RUN_SCENARIO({
    const std::string dir = fresh_dir("cap");
    use_workload(dir);
    auto keep = driver();
    SCENARIO_CHECK(keep.init(0x1, 1, 2, 0, testing::capture_logger) && keep.context);
    for (int i = 0; i < 10; ++i) keep.collective("AllReduce", 64, "ncclFloat32", "Ring", "LL", 1);
    for (int i = 0; i < 4200; ++i) {
      auto c = driver();
      SCENARIO_CHECK(c.init(0x10000 + i, 1, 2, 0, testing::capture_logger) && c.context);
      c.collective("AllReduce", 64, "ncclFloat32", "Ring", "LL", 1);
      SCENARIO_CHECK(c.finalize());
    }
    SCENARIO_CHECK(testing::count_level(nccl_abi::kLogWarn) == 1);
    SCENARIO_CHECK(testing::all_lines().find("more communicators than the 4096") != std::string::npos);
    SCENARIO_CHECK(keep.finalize());
    const workload::Workload w = read_workload(own_file(dir));
    SCENARIO_CHECK(w.communicators.size() == 4096);
    SCENARIO_CHECK(find_comm(w, "0x1") && calls_of(*find_comm(w, "0x1")) == 10);
  });
}

}  // namespace
}  // namespace cctune::tuner
