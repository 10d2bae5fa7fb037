// A stand-in for a training job, for `cctune verify --job` and `tune --job` tests without a
// GPU: it loads the profiler plugin NCCL_PROFILER_PLUGIN names, as NCCL does (dlopen), and
// plays NCCL's side of one communicator (profiler_driver.hpp): a start-up broadcast, then
// TEST_JOB_STEPS steps (default 30) of three all-reduces, each step TEST_JOB_STEP_MS long
// (default 4). A setting makes it faster or slower as a real one would:
// TEST_JOB_FASTER_WITH=NAME=VALUE multiplies the step time by TEST_JOB_FACTOR (default 0.5)
// when the environment holds NAME=VALUE. TEST_JOB_EXIT=N exits N after its steps. It prints
// nothing. As NCCL, it loads the tuner plugin NCCL_TUNER_PLUGIN names and asks it about every
// all-reduce (tuner_driver.hpp); TEST_JOB_FASTER_WHEN_STEERED=1 applies TEST_JOB_FACTOR once the
// tuner changed a call's choice. It exports ncclGetVersion, which answers TEST_JOB_NCCL_VERSION
// (e.g. 22809) where set and fails otherwise, so the tuner checks a profile's NCCL version as
// it would in a job. Shapes real training scripts have, none by default:
//   TEST_JOB_STARTUP_CALLS=k  k more broadcasts before the first step (FSDP's sync_module_states)
//   TEST_JOB_EVAL_EVERY=m     an evaluation's all-reduce (7 elements) after every m-th step, taking
//                             TEST_JOB_EVAL_MS (default 0)
//   TEST_JOB_TAIL_CALLS=k     k calls after the last step: a barrier (PyTorch's dist.barrier() is a
//                             one-element all-reduce), a metrics reduction, a checkpoint broadcast
//   TEST_JOB_LAST_STEP_CALLS=k  the last step stops after k of its calls (the job stopped mid-step)
//   TEST_JOB_METRICS_COMM=1   a second communicator, a metrics group: one loss reduction a step
#include <dlfcn.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "profiler_driver.hpp"
#include "tuner_driver.hpp"

extern "C" __attribute__((visibility("default"))) int ncclGetVersion(int* version) {
  const char* v = std::getenv("TEST_JOB_NCCL_VERSION");
  if (!v || !*v || !version) return 1;  // ncclUnhandledCudaError: no version known
  *version = std::atoi(v);
  return 0;
}

namespace {

void quiet_logger(int, unsigned long, const char*, int, const char*, ...) {}

double env_number(const char* name, double fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtod(v, nullptr) : fallback;
}

// The step time this run's environment gives.
double step_ms() {
  double ms = env_number("TEST_JOB_STEP_MS", 4.0);
  const char* faster = std::getenv("TEST_JOB_FASTER_WITH");
  if (faster && std::strchr(faster, '=')) {
    const std::string setting(faster);
    const std::string name = setting.substr(0, setting.find('='));
    const char* value = std::getenv(name.c_str());
    if (value && setting.substr(setting.find('=') + 1) == value) ms *= env_number("TEST_JOB_FACTOR", 0.5);
  }
  return ms;
}

// The calls after the last step, in the order scripts issue them.
void tail_calls(cctune::tuner::testing::ProfilerDriver& comm, int k) {
  for (int i = 0; i < k; ++i) {
    if (i % 3 == 0) comm.collective("AllReduce", 1, "ncclFloat32", "Ring", "LL", 2);          // dist.barrier()
    if (i % 3 == 1) comm.collective("AllReduce", 4, "ncclFloat32", "Ring", "LL", 2);          // final metrics
    if (i % 3 == 2) comm.collective("Broadcast", 1 << 16, "ncclUint8", "Ring", "Simple", 2);  // checkpoint
  }
}

}  // namespace

int main() {
  const char* path = std::getenv("NCCL_PROFILER_PLUGIN");
  if (!path) return 3;
  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) return 3;
  const auto* plugin = static_cast<const cctune::nccl_abi::ProfilerV5*>(dlsym(lib, "ncclProfiler_v5"));
  if (!plugin) return 3;
  cctune::tuner::testing::ProfilerDriver comm{plugin}, metrics{plugin};
  if (!comm.init(0xc0ffee, 1, 2, 0, quiet_logger)) return 3;
  cctune::tuner::testing::TunerDriver tuner;
  tuner.load(0xc0ffee, 2, 1, quiet_logger);
  const bool metrics_comm = env_number("TEST_JOB_METRICS_COMM", 0) > 0;
  if (metrics_comm && !metrics.init(0xbeef, 1, 2, 0, quiet_logger)) return 3;
  const int steps = static_cast<int>(env_number("TEST_JOB_STEPS", 30));
  const int eval_every = static_cast<int>(env_number("TEST_JOB_EVAL_EVERY", 0));
  const int last_step_calls = static_cast<int>(env_number("TEST_JOB_LAST_STEP_CALLS", -1));
  auto step = std::chrono::duration<double, std::milli>(step_ms());
  const auto eval = std::chrono::duration<double, std::milli>(env_number("TEST_JOB_EVAL_MS", 0));
  for (int i = 0, startup = static_cast<int>(env_number("TEST_JOB_STARTUP_CALLS", 0)); i < startup; ++i)
    comm.collective("Broadcast", 1u << (10 + i % 8), "ncclFloat32", "Ring", "Simple", 2);
  comm.collective("Broadcast", 1 << 20, "ncclFloat32", "Ring", "Simple", 2);
  auto next = std::chrono::steady_clock::now();
  bool steered = false;
  for (int s = 0; s < steps; ++s) {
    const int calls = s == steps - 1 && last_step_calls >= 0 ? last_step_calls : 3;
    int issued = 0;
    for (std::size_t count : {1u << 20, 1u << 20, 1u << 22}) {
      if (issued++ >= calls) break;
      steered = tuner.ask(cctune::nccl_abi::kFuncAllReduce, count * 4) || steered;
      comm.collective("AllReduce", count, "ncclFloat32", "Ring", "Simple", 2);
    }
    if (metrics_comm) metrics.collective("AllReduce", 1, "ncclFloat32", "Ring", "LL", 2);
    if (s == 0 && steered && env_number("TEST_JOB_FASTER_WHEN_STEERED", 0) == 1) step *= env_number("TEST_JOB_FACTOR", 0.5);
    next += std::chrono::duration_cast<std::chrono::steady_clock::duration>(step);
    if (eval_every > 0 && (s + 1) % eval_every == 0 && calls == 3) {
      comm.collective("AllReduce", 7, "ncclFloat32", "Ring", "LL", 2);
      next += std::chrono::duration_cast<std::chrono::steady_clock::duration>(eval);
    }
    std::this_thread::sleep_until(next);
  }
  tail_calls(comm, static_cast<int>(env_number("TEST_JOB_TAIL_CALLS", 0)));
  comm.finalize();
  if (metrics_comm) metrics.finalize();
  return static_cast<int>(env_number("TEST_JOB_EXIT", 0));
}
