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
// it would in a job.
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

}  // namespace

int main() {
  const char* path = std::getenv("NCCL_PROFILER_PLUGIN");
  if (!path) return 3;
  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) return 3;
  const auto* plugin = static_cast<const cctune::nccl_abi::ProfilerV5*>(dlsym(lib, "ncclProfiler_v5"));
  if (!plugin) return 3;
  cctune::tuner::testing::ProfilerDriver comm{plugin};
  if (!comm.init(0xc0ffee, 1, 2, 0, quiet_logger)) return 3;
  cctune::tuner::testing::TunerDriver tuner;
  tuner.load(0xc0ffee, 2, 1, quiet_logger);
  const int steps = static_cast<int>(env_number("TEST_JOB_STEPS", 30));
  auto step = std::chrono::duration<double, std::milli>(step_ms());
  comm.collective("Broadcast", 1 << 20, "ncclFloat32", "Ring", "Simple", 2);
  auto next = std::chrono::steady_clock::now();
  bool steered = false;
  for (int s = 0; s < steps; ++s) {
    for (std::size_t count : {1u << 20, 1u << 20, 1u << 22}) {
      steered = tuner.ask(cctune::nccl_abi::kFuncAllReduce, count * 4) || steered;
      comm.collective("AllReduce", count, "ncclFloat32", "Ring", "Simple", 2);
    }
    if (s == 0 && steered && env_number("TEST_JOB_FASTER_WHEN_STEERED", 0) == 1) step *= env_number("TEST_JOB_FACTOR", 0.5);
    next += std::chrono::duration_cast<std::chrono::steady_clock::duration>(step);
    std::this_thread::sleep_until(next);
  }
  comm.finalize();
  return static_cast<int>(env_number("TEST_JOB_EXIT", 0));
}
