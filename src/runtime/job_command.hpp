#pragma once
// One run of a user's job command (`cctune verify --job`, `tune --job`): spawned as the
// NCCL workers are (runtime/worker_process.hpp: its own process group, output to a log file),
// waited for, and killed with everything it started when it outlives its time limit or when
// cctune is asked to stop. The job is anything that starts NCCL: torchrun, mpirun, srun, a
// script.
#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cctune::runtime {

struct JobCommand {
  std::vector<std::string> argv;  // argv[0]: a path, or a name looked up in PATH
};

// argv[0] as a path to run; throws UsageError naming it when it is not an executable file
// (searched in `path_variable`'s directories when it holds no '/').
std::string resolve_job_executable(const std::string& name, const std::string& path_variable);

struct JobRunRequest {
  JobCommand command;
  std::map<std::string, std::string> env;  // the complete environment
  std::string log_path;                    // stdout + stderr, created
  std::chrono::seconds time_limit{3600};
};

struct JobRunResult {
  bool exited_ok = false;
  std::string how;  // "exit code 3", "killed by signal SIGSEGV", "ran past its time limit of 600 s", "stopped"
  double wall_s = 0;
  int stop_signal = 0;  // cctune was asked to stop (SIGINT/SIGTERM) while it ran
};

// Runs the job to its end (or its limit, or a stop request: runtime/signals.hpp).
JobRunResult run_job_command(const JobRunRequest& request);

}  // namespace cctune::runtime
