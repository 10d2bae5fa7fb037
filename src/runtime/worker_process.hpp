#pragma once
// One worker process as the supervisor sees it: spawned with posix_spawn in its own
// process group, stdin and fd 3 connected to pipes, stdout/stderr appended to a log file.
// The owner kills (SIGKILL to the whole group) and reaps it; the destructor does both if
// nobody did. A process SIGKILL cannot end in time (uninterruptible sleep in a driver or on
// a hung file system) is abandoned after a bounded wait rather than waited for forever.
#include <sys/types.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cctune::runtime {

struct SpawnRequest {
  std::string executable;
  std::vector<std::string> args;             // argv[1..]
  std::map<std::string, std::string> env;    // the complete environment
  std::string log_path;                      // stdout + stderr, appended
  // A session of its own (setsid: no controlling terminal) rather than only a process group:
  // the job shim (runtime/job_shim.hpp). Either way its pid is its group's id.
  bool new_session = false;
};

class WorkerProcess {
 public:
  // Throws RuntimeFailure naming the executable and errno.
  static WorkerProcess spawn(const SpawnRequest& request);
  WorkerProcess(WorkerProcess&& other) noexcept;
  WorkerProcess& operator=(WorkerProcess&&) = delete;
  WorkerProcess(const WorkerProcess&) = delete;
  ~WorkerProcess();

  pid_t pid() const { return pid_; }
  int stdin_fd() const { return stdin_fd_; }      // the supervisor writes here
  int message_fd() const { return message_fd_; }  // the supervisor reads here (non-blocking)
  // Reaps without blocking; true once the process has exited (then status() is set).
  bool poll_exit();
  // SIGKILL to the worker's process group (and to the worker, should it have left it).
  void send_kill();
  // Waits (polling) until the process is reaped or `deadline` passes; true once reaped.
  // After the deadline the process is abandoned: nobody waits for it again.
  bool reap_until(std::chrono::steady_clock::time_point deadline);
  // send_kill, then reap_until now + kKillWait; false when the process was abandoned.
  bool kill_and_reap();
  bool abandoned() const { return abandoned_; }
  // Closes stdin so a worker waiting for input sees EOF.
  void close_stdin();
  std::optional<int> status() const { return status_; }  // waitpid status
  bool exited_ok() const;

 private:
  WorkerProcess() = default;
  pid_t pid_ = -1;
  int stdin_fd_ = -1;
  int message_fd_ = -1;
  std::optional<int> status_;
  bool abandoned_ = false;
};

// How long a SIGKILLed worker may take to be reaped before it is given up on: long enough
// for a process that is merely slow to unwind (a large address space, a busy host).
inline constexpr std::chrono::seconds kKillWait{5};

// "exit code 3", "killed by signal SIGABRT".
std::string describe_wait_status(int status);
// "SIGKILL" etc.; "signal N" for unnamed ones.
std::string signal_name(int sig);

// Launcher variables a worker must not inherit (it would think it is an MPI rank).
bool is_launcher_variable(const std::string& key);
// The worker environment: `base` (the caller's) minus launcher variables and a deployed
// CCTUNE_PROFILE, plus `group_env`
// (the group's settings and the sweep's own plugin variables), which wins. Nothing else:
// workers measure what the caller's jobs run, NVLS included where NCCL enables it.
std::map<std::string, std::string> worker_environment(const std::map<std::string, std::string>& base,
                                                      const std::map<std::string, std::string>& group_env);
// The NCCL settings of an environment (core/nccl_settings.hpp: NCCL_* and the buffer
// registration switch the worker honours): what the workers ran with, as results record it.
std::map<std::string, std::string> nccl_variables(const std::map<std::string, std::string>& env);
// This process's environment as a map.
std::map<std::string, std::string> current_environment();

}  // namespace cctune::runtime
