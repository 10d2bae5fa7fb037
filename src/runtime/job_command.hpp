#pragma once
// One run of a user's job command (`cctune verify --job`, `tune --job`). The job runs under
// `cctune __job-shim` (runtime/job_shim.hpp), spawned as the NCCL workers are
// (runtime/worker_process.hpp), in a session of its own: the job's whole process tree,
// setsid'd daemons included, is ended after every run, whatever ended it (its own exit, its
// time limit, a stop request, or cctune's death), and its output reaches the log bounded.
// The job is anything that starts NCCL: torchrun, mpirun, srun, a script.
#include <chrono>
#include <cstdint>
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

// What a job's log keeps by default: its first and its last 16 MiB (runtime/bounded_log.hpp).
inline constexpr std::uint64_t default_output_keep_bytes = std::uint64_t{16} << 20;

struct JobRunRequest {
  JobCommand command;
  std::map<std::string, std::string> env;  // the complete environment
  std::string log_path;                    // stdout + stderr, created
  std::chrono::seconds time_limit{3600};
  std::uint64_t output_keep_bytes = default_output_keep_bytes;  // the log keeps the first and the last this many
  std::string shim = {};                                        // the executable that runs `__job-shim`; empty: this one (cctune)
};

struct JobRunResult {
  bool exited_ok = false;
  // "exit code 3", "killed by signal SIGSEGV", "ran past its time limit of 600 s", "stopped",
  // "stopped (it reads the terminal: SIGTTIN)"
  std::string how;
  std::string fix;  // set where cctune knows the cure better than "fix the job" (a job that reads the terminal)
  double wall_s = 0;
  int stop_signal = 0;                     // cctune was asked to stop (SIGINT/SIGTERM/SIGHUP) while it ran
  int leftovers_ended = 0;                 // processes of the job still running when its run ended, killed then
  std::uint64_t output_bytes = 0;          // what the job wrote to stdout and stderr
  std::uint64_t output_dropped_bytes = 0;  // of that, not in the log (the middle beyond the kept ends)
};

// Runs the job to its end (or its limit, or a stop request: runtime/signals.hpp), then ends
// whatever it left running. Call it on a thread that outlives the run (the main thread): the
// shim's PR_SET_PDEATHSIG follows the thread that spawned it. Throws UsageError when the
// command is not a program the kernel can start (a script without #!), RuntimeFailure when it
// cannot be started at all.
JobRunResult run_job_command(const JobRunRequest& request);

}  // namespace cctune::runtime
