#pragma once
// Writing what `cctune tune` decided: profile.json, nccl.env, nccl_tuner.conf in one
// directory (each through a temporary file and rename), and the text summary printed.
#include <nlohmann/json.hpp>
#include <string>

#include "tuner/selection/selection.hpp"

namespace cctune::tuner {

inline constexpr const char* kPluginFileName = "libnccl-tuner-cctune.so";

struct OutputPaths {
  std::string profile;     // absolute
  std::string env_file;    // absolute
  std::string tuner_conf;  // absolute
  std::string job_time;    // absolute; job_time.json, written only when tuned for a workload
};

// Where libnccl-tuner-cctune.so is for the cctune executable at `executable_path`: built
// next to it (<dir>/lib/, as the build tree lays it out), or installed (<dir>/../lib/), or
// in <dir> itself. Returns the first that exists, else the build-tree location, absolute.
std::string find_tuner_plugin(const std::string& executable_path, bool* found = nullptr);

// Writes the three files into `dir` (created when missing). The profile is checked again
// with the tuner plugin's own parser after writing; a mismatch is a RuntimeFailure.
OutputPaths write_tune_outputs(const TuneOutputs& outputs, const std::string& dir, const std::string& plugin_path);

// What was chosen: the group, one line per rule, and per-size decisions when `verbose`.
std::string format_tune_summary(const TuneOutputs& outputs, bool verbose);
// job_time.json (cctune.job_time/1): per (collective, nranks, nnodes) the job's collective time
// per step under NCCL's defaults and under the profile, with the difference's half-width.
nlohmann::json format_job_times(const TuneOutputs& outputs);

}  // namespace cctune::tuner
