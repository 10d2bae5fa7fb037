#pragma once
// `cctune verify --job --profile P [--rounds N] -- CMD ARGS...`: the user's job run in N
// interleaved pairs, NCCL's defaults against the profile, each run timed by its step time
// (the profiler half, loaded into the job: job_sides.hpp); the paired speedup with its
// interval, exit 4 when the profile is slower beyond noise. docs/WORKLOAD.md "Verify on the job".
#include <CLI/CLI.hpp>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cctune::app {

class Session;

struct JobArgs {
  std::vector<std::string> command;  // after --
  std::string output_dir;
  int rounds = 6;
  // --until-decided MAX (verify --job): more pairs, up to MAX, until the verdict settles the
  // tolerance (ab_analysis.hpp decided); 0: exactly `rounds` pairs.
  int until_decided = 0;
  double tolerance = 0.02;
  std::optional<std::uint64_t> steps;  // --steps
  int timeout_s = 3600;                // --job-timeout-s, per run
  bool force = false;
};

// --job, --steps, --job-timeout-s and the command after -- (`job` set by --job).
void add_job_options(CLI::App& cmd, bool& job, JobArgs& args);

int run_verify_job(Session& session, const std::string& profile_path, const JobArgs& args);

// The race settings both job commands start from: the command resolved, the output directory
// made absolute, what the command writes there (`outputs`), the environment every run starts
// from (`base_env`: race_base's), and the limits checked (UsageError naming the flag).
struct RaceSettings;
RaceSettings race_settings(const JobArgs& args, const std::string& plugin, int planned_runs, std::vector<std::string> outputs,
                           std::map<std::string, std::string> base_env);
// One stderr line naming the caller's variables race_base left out, when there are any.
struct RaceBase;
void say_caller_settings(const RaceBase& base);

}  // namespace cctune::app
