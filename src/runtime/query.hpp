#pragma once
// What the supervisor learns about GPUs and NCCL without linking either: it runs
// `cctune __worker --query` once, which loads the NCCL module and prints one JSON line.
#include <map>
#include <string>

namespace cctune::runtime {

struct GpuQuery {
  int device_count = 0;
  std::string nccl_version;
  std::string cuda;          // as the module says it: "runtime 13.0, driver 13.0"
  std::string cuda_runtime;  // its two parts, when it says both ("13.0"); else empty
  std::string cuda_driver;
};

// Throws EnvironmentError with the worker's one-line reason (e.g. "NCCL backend could not
// be loaded: ...") when the module cannot be loaded or CUDA fails; RuntimeFailure when the
// query does not answer within `timeout_s`. `env`: the worker environment.
GpuQuery query_gpus(const std::string& executable, const std::map<std::string, std::string>& env,
                    const std::string& scratch_dir, double timeout_s = 120);

// For `cctune --version`: NCCL's and CUDA's versions as the NCCL module sees them, or
// "not found (reason)" for each. Never throws and never waits longer than `timeout_s`.
struct RuntimeVersions {
  std::string nccl;         // "2.28.3" or "not found (...)"
  std::string cuda;         // "runtime 13.0, driver 12.8" or "not found (...)"
  std::string module_path;  // the module that answered; empty when none did
};
RuntimeVersions query_versions(const std::string& executable, const std::map<std::string, std::string>& env,
                               const std::string& scratch_dir, double timeout_s = 20);

}  // namespace cctune::runtime
