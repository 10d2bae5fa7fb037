#include "runtime/job_shim.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "core/text.hpp"
#include "runtime/bounded_log.hpp"
#include "runtime/line_channel.hpp"
#include "runtime/orphans.hpp"
#include "runtime/protocol.hpp"
#include "runtime/worker_process.hpp"

extern char** environ;

namespace cctune::runtime {
namespace {

using Clock = std::chrono::steady_clock;

struct ShimArgs {
  pid_t parent = 0;
  std::uint64_t keep_bytes = 0;
  std::vector<std::string> job;
};

std::optional<ShimArgs> parse_args(int argc, char** argv) {
  ShimArgs a;
  int i = 1;
  for (; i + 1 < argc && std::string(argv[i]) != "--"; i += 2) {
    char* end = nullptr;
    const unsigned long long v = std::strtoull(argv[i + 1], &end, 10);
    if (end == argv[i + 1] || *end != '\0') return std::nullopt;
    if (std::string(argv[i]) == "--parent")
      a.parent = static_cast<pid_t>(v);
    else if (std::string(argv[i]) == "--keep-bytes")
      a.keep_bytes = v;
    else
      return std::nullopt;
  }
  if (i + 1 >= argc || std::string(argv[i]) != "--" || a.parent <= 0 || a.keep_bytes == 0) return std::nullopt;
  a.job.assign(argv + i + 1, argv + argc);
  return a;
}

struct JobState {
  pid_t pid = -1;
  std::optional<int> status;   // once reaped
  int stopped_by = 0;          // SIGTTIN/SIGTTOU: it reads the terminal
  bool end_requested = false;  // SIGTERM/SIGINT/SIGHUP: cctune's stop or time limit, or cctune's death
  bool done() const { return status || stopped_by != 0 || end_requested; }
};

// The signals the shim acts on, blocked and read from a signalfd, so that none interrupts the
// loop half-way. Blocked before PR_SET_PDEATHSIG: a parent dying right after is not lost.
int block_signals() {
  sigset_t set;
  sigemptyset(&set);
  for (const int s : {SIGCHLD, SIGTERM, SIGINT, SIGHUP}) sigaddset(&set, s);
  ::sigprocmask(SIG_BLOCK, &set, nullptr);
  return ::signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
}

// The job in a process group of its own, stdin /dev/null, stdout and stderr into the pipe,
// nothing else of the shim's open (fd 3 is the shim's report to cctune), the signal state a
// program expects. Returns its pid, or -1 with `error` set.
pid_t spawn_job(const std::vector<std::string>& job, int out_fd, int& error) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_fd, 1);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  posix_spawn_file_actions_addclosefrom_np(&actions, 3);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults, empty;
  sigemptyset(&defaults);
  for (const int s : {SIGPIPE, SIGINT, SIGTERM}) sigaddset(&defaults, s);  // cctune ignores SIGPIPE; a job must not inherit that
  sigemptyset(&empty);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setsigmask(&attr, &empty);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  std::vector<std::string> args = job;
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  error = ::posix_spawn(&pid, args[0].c_str(), &actions, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  return error == 0 ? pid : -1;
}

// Reaps every child that ended (the job, and processes it left that ended by themselves) and
// notes the job's end, or its stop by a terminal read.
void reap(JobState& job) {
  for (;;) {
    int st = 0;
    const pid_t r = ::waitpid(-1, &st, WNOHANG | WUNTRACED);
    if (r <= 0) return;
    if (r != job.pid || job.status) continue;
    if (!WIFSTOPPED(st))
      job.status = st;
    else if (WSTOPSIG(st) == SIGTTIN || WSTOPSIG(st) == SIGTTOU)
      job.stopped_by = WSTOPSIG(st);
    // Stopped by SIGSTOP/SIGTSTP: someone paused it on purpose (a debugger); the time limit bounds it.
  }
}

void read_signals(int sfd, JobState& job) {
  signalfd_siginfo si;
  while (::read(sfd, &si, sizeof si) == static_cast<ssize_t>(sizeof si))
    if (si.ssi_signo != SIGCHLD) job.end_requested = true;
  reap(job);
}

// Moves what the pipe holds into the log, a bounded amount per call so signals are seen in
// time. False once every writer has closed it (or it failed).
bool pump(int fd, BoundedLog& log) {
  char buf[65536];
  for (int i = 0; i < 64; ++i) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      log.write(buf, static_cast<std::size_t>(n));
    } else if (n == 0) {
      return false;
    } else if (errno != EINTR) {
      return errno == EAGAIN || errno == EWOULDBLOCK;
    }
  }
  return true;
}

// Until the job ends, stops or the shim is told to end it, reading its output all the while:
// a job must never wait on a full pipe.
void watch(JobState& job, pid_t parent, int sfd, int out_fd, BoundedLog& log) {
  bool reading = true;
  while (!job.done()) {
    pollfd fds[2] = {{sfd, POLLIN, 0}, {reading ? out_fd : -1, POLLIN, 0}};
    ::poll(fds, 2, 1000);
    if (fds[1].revents != 0) reading = pump(out_fd, log);
    read_signals(sfd, job);
    if (::getppid() != parent) job.end_requested = true;  // cctune is gone, whatever became of PDEATHSIG
  }
}

// SIGKILL to the job's group and to every descendant until a look at /proc finds none running,
// or `deadline` passes (a process in uninterruptible sleep is left behind). Returns how many
// processes besides the job's own were ended.
int end_tree(JobState& job, Clock::time_point deadline) {
  std::set<pid_t> ended;
  for (;;) {
    // While the job is unreaped its pid is still its group's id; after that, every member is
    // reached as a descendant (the shim is their subreaper), never by a group id reused since.
    if (!job.status) ::kill(-job.pid, SIGKILL);
    const std::vector<pid_t> alive = live_descendants();
    for (const pid_t p : alive) {
      if (p != job.pid) ended.insert(p);
      ::kill(p, SIGKILL);
    }
    reap(job);
    if (alive.empty() || Clock::now() >= deadline) break;
    ::usleep(2000);
  }
  return static_cast<int>(ended.size());
}

// After the tree is gone: the output still in the pipe, until its end or `deadline` (a writer
// SIGKILL could not end may hold it open).
void drain(int fd, BoundedLog& log, Clock::time_point deadline) {
  while (Clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    ::poll(&p, 1, 50);
    if (!pump(fd, log)) return;
  }
}

void report(const nlohmann::json& message) { write_line(worker_message_fd, text::dump_json(message)); }

}  // namespace

std::vector<std::string> job_shim_args(pid_t parent, std::uint64_t keep_bytes, const std::vector<std::string>& job_argv) {
  std::vector<std::string> out{job_shim_command, "--parent", std::to_string(parent), "--keep-bytes", std::to_string(keep_bytes), "--"};
  out.insert(out.end(), job_argv.begin(), job_argv.end());
  return out;
}

int job_shim_main(int argc, char** argv) {
  const std::optional<ShimArgs> args = parse_args(argc, argv);
  if (!args) {
    std::fprintf(stderr, "cctune %s: bad arguments (it is started by cctune verify --job and tune --job, not by hand)\n", job_shim_command);
    return 2;
  }
  const int sfd = block_signals();
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (::getppid() != args->parent || sfd < 0) return 1;  // cctune ended before the prctl: start nothing
  adopt_orphans();
  ::signal(SIGPIPE, SIG_IGN);  // cctune may be gone when the report is written
  int out[2];
  JobState job;
  int error = ::pipe2(out, O_CLOEXEC) == 0 ? 0 : errno;
  if (error == 0) {
    job.pid = spawn_job(args->job, out[1], error);
    ::close(out[1]);
  }
  if (job.pid < 0) {
    report({{"type", "spawn_error"}, {"errno", error}});
    return 127;
  }
  set_nonblocking(out[0]);
  BoundedLog log(STDOUT_FILENO, args->keep_bytes);
  watch(job, args->parent, sfd, out[0], log);
  const int leftovers = end_tree(job, Clock::now() + kKillWait);
  drain(out[0], log, Clock::now() + std::chrono::seconds(2));
  log.finish();
  nlohmann::json end = {
      {"type", "end"}, {"leftovers_ended", leftovers}, {"output_bytes", log.total_bytes()}, {"output_dropped_bytes", log.dropped_bytes()}};
  if (job.status) end["status"] = *job.status;
  if (job.stopped_by != 0) end["stopped_by"] = job.stopped_by;
  report(end);
  return 0;
}

}  // namespace cctune::runtime
