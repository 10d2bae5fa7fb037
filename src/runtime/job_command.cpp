#include "runtime/job_command.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "core/error.hpp"
#include "core/text.hpp"
#include "runtime/job_shim.hpp"
#include "runtime/line_channel.hpp"
#include "runtime/orphans.hpp"
#include "runtime/signals.hpp"
#include "runtime/worker_process.hpp"

namespace cctune::runtime {
namespace {

using Clock = std::chrono::steady_clock;

bool is_executable_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

constexpr std::chrono::milliseconds kPollInterval{20};

std::string shim_executable(const JobRunRequest& request) {
  if (!request.shim.empty()) return request.shim;
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec)
    throw EnvironmentError("cannot find cctune's own executable (/proc/self/exe): " + ec.message(), "run cctune where /proc is mounted");
  return self.string();
}

// The shim's last word (runtime/job_shim.hpp): {"type":"end",...} or {"type":"spawn_error",...}.
struct ShimReport {
  bool ended = false;
  std::optional<int> status;  // the job's wait status, once the shim reaped it
  int stopped_by = 0;
  int leftovers_ended = 0;
  std::uint64_t output_bytes = 0;
  std::uint64_t output_dropped_bytes = 0;
  int spawn_errno = 0;
};

template <class T>
T number_or(const nlohmann::json& m, const char* key, T fallback) {
  const auto it = m.find(key);
  return it != m.end() && it->is_number_integer() ? it->get<T>() : fallback;
}

void read_report(LineReader& reader, ShimReport& report) {
  std::vector<std::string> lines;
  reader.read_available(lines);
  for (const std::string& line : lines) {
    const nlohmann::json m = nlohmann::json::parse(line, nullptr, false);
    if (!m.is_object() || !m.contains("type") || !m["type"].is_string()) continue;
    if (m["type"] == "spawn_error") report.spawn_errno = number_or(m, "errno", EINVAL);
    if (m["type"] != "end") continue;
    report.ended = true;
    if (m.contains("status") && m["status"].is_number_integer()) report.status = m["status"].get<int>();
    report.stopped_by = number_or(m, "stopped_by", 0);
    report.leftovers_ended = number_or(m, "leftovers_ended", 0);
    report.output_bytes = number_or<std::uint64_t>(m, "output_bytes", 0);
    report.output_dropped_bytes = number_or<std::uint64_t>(m, "output_dropped_bytes", 0);
  }
}

// Asks the shim to end the job's tree (it then reports what it ended) and waits for it; a shim
// that does not answer in time is SIGKILLed, and what it left comes to cctune (adopt_orphans).
void end_through_shim(WorkerProcess& shim) {
  ::kill(shim.pid(), SIGTERM);
  const auto until = Clock::now() + kKillWait + std::chrono::seconds(2);
  while (!shim.poll_exit() && Clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  if (!shim.status()) shim.kill_and_reap();
}

[[noreturn]] void throw_start_error(const std::string& shown, int error) {
  if (error == ENOEXEC)
    throw UsageError("the job command " + shown + " is not a program the kernel can start (no #! line?)",
                     "add #!/bin/bash (or the interpreter it needs) as its first line, or run it as: -- bash " + shown);
  throw RuntimeFailure("could not start the job " + shown + ": " + std::strerror(error),
                       "check that the job's command runs as it is, outside cctune");
}

// The job's end as the shim saw it, where cctune did not end it itself.
void describe_end(const ShimReport& report, const WorkerProcess& shim, JobRunResult& out) {
  if (report.stopped_by != 0) {
    out.how = "stopped (it reads the terminal: " + signal_name(report.stopped_by) + ")";
    out.fix =
        "the job must run without a terminal: answer its question beforehand (e.g. ssh-keyscan the hosts into ~/.ssh/known_hosts) "
        "or give it its input from a file";
  } else if (report.status) {
    out.exited_ok = WIFEXITED(*report.status) && WEXITSTATUS(*report.status) == 0;
    out.how = describe_wait_status(*report.status);
  } else if (report.ended) {
    out.how = "did not end after SIGKILL (abandoned: stuck in the kernel, e.g. a GPU driver or a hung file system)";
  } else {
    out.how = "was lost: cctune's job shim ended (" + (shim.status() ? describe_wait_status(*shim.status()) : std::string("abandoned")) +
              ") before the job did";
  }
}

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
  const std::string shown = text::terminal_text(request.command.argv.at(0));
  adopt_orphans();  // were the shim killed, the job's processes would come to cctune to be ended
  SpawnRequest spawn{shim_executable(request), job_shim_args(::getpid(), request.output_keep_bytes, request.command.argv), request.env,
                     request.log_path, /*new_session=*/true};
  const auto start = Clock::now();
  std::optional<WorkerProcess> spawned;
  try {
    spawned.emplace(WorkerProcess::spawn(spawn));
  } catch (const Error& e) {
    throw RuntimeFailure("could not start the job " + shown + ": " + e.what(),
                         "check that the job's command runs as it is, outside cctune");
  }
  WorkerProcess& shim = *spawned;
  shim.close_stdin();  // the shim gives the job /dev/null
  LineReader reader(shim.message_fd());
  ShimReport report;
  JobRunResult out;
  const auto deadline = start + request.time_limit;
  while (!shim.poll_exit()) {
    read_report(reader, report);
    if (const int sig = stop_signal()) {
      out.stop_signal = sig;
      out.how = "stopped";
      end_through_shim(shim);
      break;
    }
    if (Clock::now() >= deadline) {
      out.how = "ran past its time limit of " + std::to_string(request.time_limit.count()) + " s";
      end_through_shim(shim);
      break;
    }
    pollfd p{reader.eof() ? -1 : reader.fd(), POLLIN, 0};
    ::poll(&p, 1, static_cast<int>(kPollInterval.count()));
  }
  read_report(reader, report);
  int adopted = 0;  // left by a shim that did not end them (it was killed): cctune's children now
  end_children({}, Clock::now() + kKillWait, &adopted);
  out.wall_s = std::chrono::duration<double>(Clock::now() - start).count();
  if (report.spawn_errno != 0) throw_start_error(shown, report.spawn_errno);
  out.leftovers_ended = report.leftovers_ended + adopted;
  out.output_bytes = report.output_bytes;
  out.output_dropped_bytes = report.output_dropped_bytes;
  if (out.how.empty()) describe_end(report, shim, out);
  return out;
}

}  // namespace cctune::runtime
