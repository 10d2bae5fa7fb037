#include "runtime/job_command.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <thread>

#include "core/error.hpp"
#include "core/text.hpp"
#include "runtime/signals.hpp"
#include "runtime/worker_process.hpp"

namespace cctune::runtime {
namespace {

bool is_executable_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

constexpr std::chrono::milliseconds kPollInterval{20};

}  // namespace

std::string resolve_job_executable(const std::string& name, const std::string& path_variable) {
  const std::string shown = text::terminal_text(name);
  if (name.empty()) throw UsageError("the job command is empty", "give the job after --, e.g. -- torchrun --nproc-per-node 4 train.py");
  if (name.find('/') != std::string::npos) {
    if (!is_executable_file(name)) throw UsageError("the job command " + shown + " is not an executable file", "check the path after --");
    return name;
  }
  std::size_t start = 0;
  while (start <= path_variable.size()) {
    const std::size_t end = std::min(path_variable.find(':', start), path_variable.size());
    const std::string dir = end > start ? path_variable.substr(start, end - start) : ".";
    const std::string candidate = dir + "/" + name;
    if (is_executable_file(candidate)) return candidate;
    start = end + 1;
  }
  throw UsageError("the job command " + shown + " was not found in PATH", "give its path, or fix PATH");
}

JobRunResult run_job_command(const JobRunRequest& request) {
  SpawnRequest spawn{request.command.argv.at(0), {request.command.argv.begin() + 1, request.command.argv.end()}, request.env,
                     request.log_path};
  const auto start = std::chrono::steady_clock::now();
  std::optional<WorkerProcess> spawned;
  try {
    spawned.emplace(WorkerProcess::spawn(spawn));
  } catch (const Error& e) {
    throw RuntimeFailure("could not start the job " + text::terminal_text(spawn.executable) + ": " + e.what(),
                         "check that the job's command runs as it is, outside cctune");
  }
  WorkerProcess& job = *spawned;
  job.close_stdin();  // a job that reads stdin sees its end, as under a batch system
  JobRunResult out;
  const auto deadline = start + request.time_limit;
  while (!job.poll_exit()) {
    if (const int sig = stop_signal()) {
      out.stop_signal = sig;
      out.how = "stopped";
      job.kill_and_reap();
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      out.how = "ran past its time limit of " + std::to_string(request.time_limit.count()) + " s";
      job.kill_and_reap();
      break;
    }
    std::this_thread::sleep_for(kPollInterval);
  }
  out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (out.how.empty() && job.status()) {
    out.exited_ok = job.exited_ok();
    out.how = describe_wait_status(*job.status());
  }
  return out;
}

}  // namespace cctune::runtime
