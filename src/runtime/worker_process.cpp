#include "runtime/worker_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/error.hpp"
#include "core/nccl_settings.hpp"
#include "runtime/line_channel.hpp"
#include "runtime/protocol.hpp"

extern char** environ;

namespace cctune::runtime {
namespace {

// A pipe whose two fds are above the standard ones and fd 3, close-on-exec, so that the
// child's dup2 onto 0 or 3 always copies (dup2 onto the same fd would keep CLOEXEC).
void make_pipe(int fds[2]) {
  int raw[2];
  if (::pipe2(raw, O_CLOEXEC) != 0) throw RuntimeFailure(std::string("pipe() failed: ") + std::strerror(errno));
  for (int i = 0; i < 2; ++i) {
    fds[i] = ::fcntl(raw[i], F_DUPFD_CLOEXEC, 10);
    ::close(raw[i]);
    if (fds[i] < 0) throw RuntimeFailure(std::string("fcntl(F_DUPFD) failed: ") + std::strerror(errno));
  }
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace

std::string signal_name(int sig) {
  switch (sig) {
    case SIGABRT: return "SIGABRT";
    case SIGSEGV: return "SIGSEGV";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGPIPE: return "SIGPIPE";
    case SIGHUP: return "SIGHUP";
    case SIGQUIT: return "SIGQUIT";
    case SIGTRAP: return "SIGTRAP";
    default: return "signal " + std::to_string(sig);
  }
}

std::string describe_wait_status(int status) {
  if (WIFEXITED(status)) return "exit code " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "killed by signal " + signal_name(WTERMSIG(status));
  return "stopped (wait status " + std::to_string(status) + ")";
}

bool is_launcher_variable(const std::string& key) {
  static const char* const prefixes[] = {"OMPI_", "PMIX_", "PMI_", "PRTE_", "HYDRA_", "MPI_LOCALRANKID", "MPI_LOCALNRANKS"};
  for (const char* p : prefixes)
    if (key.rfind(p, 0) == 0) return true;
  // Slurm step variables make a child think it is a task of the step; job-level ones
  // (SLURM_JOB_ID, SLURM_JOB_NODELIST...) are harmless and useful in logs.
  static const char* const slurm_step[] = {"SLURM_STEP", "SLURM_PROCID", "SLURM_LOCALID", "SLURM_NODEID", "SLURM_NTASKS",
                                           "SLURM_NPROCS", "SLURM_TASK", "SLURM_SRUN", "SLURM_LAUNCH", "SLURM_CPU_BIND",
                                           "SLURM_GTIDS", "SLURM_PMI", "SLURM_MPI_TYPE", "SLURM_DISTRIBUTION"};
  for (const char* p : slurm_step)
    if (key.rfind(p, 0) == 0) return true;
  return false;
}

std::map<std::string, std::string> current_environment() {
  std::map<std::string, std::string> out;
  for (char** e = environ; e && *e; ++e) {
    const char* eq = std::strchr(*e, '=');
    if (eq) out.emplace(std::string(*e, static_cast<std::size_t>(eq - *e)), std::string(eq + 1));
  }
  return out;
}

std::map<std::string, std::string> worker_environment(const std::map<std::string, std::string>& base,
                                                      const std::map<std::string, std::string>& group_env) {
  std::map<std::string, std::string> env;
  // A deployed profile in the caller's environment (`. nccl.env`) is not what a group measures:
  // a group's tuner is cctune's own or the one it names, with its own CCTUNE_PROFILE (review R7).
  for (const auto& [k, v] : base)
    if (!is_launcher_variable(k) && k != "CCTUNE_PROFILE") env[k] = v;
  for (const auto& [k, v] : group_env) env[k] = v;
  return env;
}

std::map<std::string, std::string> nccl_variables(const std::map<std::string, std::string>& env) {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : env)
    if (is_nccl_setting_name(k)) out.emplace(k, v);
  return out;
}

WorkerProcess WorkerProcess::spawn(const SpawnRequest& request) {
  WorkerProcess w;
  int in_pipe[2], msg_pipe[2];
  make_pipe(in_pipe);
  try {
    make_pipe(msg_pipe);
  } catch (...) {
    ::close(in_pipe[0]);
    ::close(in_pipe[1]);
    throw;
  }

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in_pipe[0], 0);
  posix_spawn_file_actions_adddup2(&actions, msg_pipe[1], worker_message_fd);
  posix_spawn_file_actions_addopen(&actions, 1, request.log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  // Nothing else of the supervisor's (MPI sockets, other workers' pipes) leaks in.
  posix_spawn_file_actions_addclosefrom_np(&actions, worker_message_fd + 1);

  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults, empty;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);  // the supervisor ignores it; the worker must not inherit that
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  sigemptyset(&empty);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setsigmask(&attr, &empty);
  posix_spawnattr_setpgroup(&attr, 0);  // its own process group: one kill() reaches all it started
  posix_spawnattr_setflags(&attr, static_cast<short>((request.new_session ? POSIX_SPAWN_SETSID : POSIX_SPAWN_SETPGROUP) |
                                                     POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK));

  std::vector<std::string> argv_s{request.executable};
  argv_s.insert(argv_s.end(), request.args.begin(), request.args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_s;
  for (const auto& [k, v] : request.env) env_s.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& e : env_s) envp.push_back(e.data());
  envp.push_back(nullptr);

  const int rc = ::posix_spawn(&w.pid_, request.executable.c_str(), &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  ::close(in_pipe[0]);
  ::close(msg_pipe[1]);
  if (rc != 0) {
    ::close(in_pipe[1]);
    ::close(msg_pipe[0]);
    w.pid_ = -1;
    throw RuntimeFailure("could not start worker " + request.executable + ": " + std::strerror(rc),
                         "check that the cctune executable is readable and executable on every node");
  }
  w.stdin_fd_ = in_pipe[1];
  w.message_fd_ = msg_pipe[0];
  set_nonblocking(w.message_fd_);
  return w;
}

WorkerProcess::WorkerProcess(WorkerProcess&& o) noexcept
    : pid_(o.pid_), stdin_fd_(o.stdin_fd_), message_fd_(o.message_fd_), status_(o.status_), abandoned_(o.abandoned_) {
  o.pid_ = -1;
  o.stdin_fd_ = -1;
  o.message_fd_ = -1;
}

WorkerProcess::~WorkerProcess() {
  if (pid_ > 0 && !status_ && !abandoned_) kill_and_reap();
  close_fd(stdin_fd_);
  close_fd(message_fd_);
}

bool WorkerProcess::poll_exit() {
  if (status_) return true;
  if (pid_ <= 0) return false;
  int st = 0;
  const pid_t r = ::waitpid(pid_, &st, WNOHANG);
  if (r == pid_) status_ = st;
  // Reaped elsewhere (the supervisor's sweep of adopted orphans): gone, status unknown.
  if (r < 0 && errno == ECHILD) status_ = SIGKILL;  // reads as "killed by signal SIGKILL"
  return status_.has_value();
}

void WorkerProcess::send_kill() {
  if (pid_ <= 0 || status_) return;
  ::kill(-pid_, SIGKILL);
  ::kill(pid_, SIGKILL);  // in case it left its group
}

// Polled, never a blocking waitpid: a process in uninterruptible sleep ignores SIGKILL until
// it wakes, which may be never, and the supervisor must stay responsive (its peers wait in
// the agreement allgather, and a stop request must still end the sweep).
bool WorkerProcess::reap_until(std::chrono::steady_clock::time_point deadline) {
  if (abandoned_) return false;
  for (;;) {
    if (poll_exit()) return true;
    if (pid_ <= 0) return false;
    if (std::chrono::steady_clock::now() >= deadline) {
      abandoned_ = true;
      return false;
    }
    ::usleep(5000);
  }
}

bool WorkerProcess::kill_and_reap() {
  if (pid_ <= 0 || status_) return true;
  if (abandoned_) return false;
  send_kill();
  return reap_until(std::chrono::steady_clock::now() + kKillWait);
}

void WorkerProcess::close_stdin() { close_fd(stdin_fd_); }

bool WorkerProcess::exited_ok() const { return status_ && WIFEXITED(*status_) && WEXITSTATUS(*status_) == 0; }

}  // namespace cctune::runtime
