#include "runtime/orphans.hpp"

#include <dirent.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <utility>

namespace cctune::runtime {

void adopt_orphans() { ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); }

namespace {

struct ProcEntry {
  pid_t pid = 0;
  pid_t ppid = 0;
  char state = 0;
};

// Every process's pid, parent and state, from /proc/<pid>/stat.
std::vector<ProcEntry> all_processes() {
  std::vector<ProcEntry> out;
  DIR* proc = ::opendir("/proc");
  if (!proc) return out;
  while (const dirent* e = ::readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(e->d_name, &end, 10);
    if (pid <= 0 || *end != '\0') continue;
    std::ifstream in(std::string("/proc/") + e->d_name + "/stat");
    std::string stat;
    std::getline(in, stat);
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read after the last ')'.
    const auto close = stat.rfind(')');
    if (close == std::string::npos) continue;
    char state = 0;
    long ppid = 0;
    if (std::sscanf(stat.c_str() + close + 1, " %c %ld", &state, &ppid) == 2)
      out.push_back({static_cast<pid_t>(pid), static_cast<pid_t>(ppid), state});
  }
  ::closedir(proc);
  return out;
}

}  // namespace

std::vector<pid_t> child_processes() {
  std::vector<pid_t> out;
  const pid_t self = ::getpid();
  for (const ProcEntry& p : all_processes())
    if (p.ppid == self) out.push_back(p.pid);
  return out;
}

std::vector<pid_t> live_descendants() {
  const std::vector<ProcEntry> procs = all_processes();
  std::vector<pid_t> tree{::getpid()};  // breadth first: tree[i]'s children are appended
  std::vector<pid_t> out;
  for (std::size_t i = 0; i < tree.size(); ++i)
    for (const ProcEntry& p : procs)
      if (p.ppid == tree[i] && p.pid != tree[i]) {
        tree.push_back(p.pid);
        if (p.state != 'Z' && p.state != 'X') out.push_back(p.pid);
      }
  return out;
}

namespace {

// One pass: SIGKILL to the children not spared, reaped until `deadline`; returns how many it
// found and how many of those are left.
std::pair<int, int> end_children_once(const std::vector<pid_t>& spare, std::chrono::steady_clock::time_point deadline) {
  std::vector<pid_t> left;
  for (const pid_t pid : child_processes())
    if (std::find(spare.begin(), spare.end(), pid) == spare.end()) {
      ::kill(pid, SIGKILL);
      left.push_back(pid);
    }
  const int found = static_cast<int>(left.size());
  while (!left.empty()) {
    std::erase_if(left, [](pid_t pid) {
      int st = 0;
      const pid_t r = ::waitpid(pid, &st, WNOHANG);
      return r == pid || (r < 0 && errno == ECHILD);
    });
    if (left.empty() || std::chrono::steady_clock::now() >= deadline) break;
    ::usleep(5000);
  }
  return {found, static_cast<int>(left.size())};
}

}  // namespace

int end_children(const std::vector<pid_t>& spare, std::chrono::steady_clock::time_point deadline, int* ended) {
  // An orphan's own children are adopted when it dies: passes until one finds nobody new.
  int killed = 0, previous_left = 0;
  for (;;) {
    const auto [found, left] = end_children_once(spare, deadline);
    killed += found - previous_left;  // a pass finds again those the last one left unreaped
    previous_left = left;
    if (found == left || std::chrono::steady_clock::now() >= deadline) {
      if (ended) *ended = killed;
      return left;
    }
  }
}

}  // namespace cctune::runtime
