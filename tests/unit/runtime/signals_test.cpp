// Stop requests (runtime/signals.hpp), each checked in a child process: the stop flag is
// process-wide and stays set. SIGHUP (a closed terminal) stops as SIGTERM does and exits 129,
// unless the caller ignores it (nohup); SIGPIPE (a closed stdout) does not end cctune
// (review 2026-11-28 R3).
#include "runtime/signals.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <functional>

#include "core/error.hpp"

namespace cctune::runtime {
namespace {

// The wait status of a child that runs `body` and exits with what it returns.
int in_child(const std::function<int()>& body) {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(body());
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

TEST(StopSignals, SighupRequestsAStopAndExits129UnlessIgnored) {
  const int status = in_child([] {
    install_stop_handlers();
    std::raise(SIGHUP);
    return stop_signal() == SIGHUP && exit_code_for_stop(stop_signal()) == exit_code::interrupted_sighup ? 0 : 1;
  });
  ASSERT_TRUE(WIFEXITED(status)) << "SIGHUP ended the process (status " << status << ")";
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(exit_code::interrupted_sighup, 129);
  // Under nohup (SIGHUP ignored by the caller) it stays ignored.
  const int nohup = in_child([] {
    std::signal(SIGHUP, SIG_IGN);
    install_stop_handlers();
    std::raise(SIGHUP);
    return stop_signal() == 0 ? 0 : 1;
  });
  ASSERT_TRUE(WIFEXITED(nohup));
  EXPECT_EQ(WEXITSTATUS(nohup), 0);
}

TEST(StopSignals, AClosedStdoutDoesNotEndTheProcess) {
  const int status = in_child([] {
    install_stop_handlers();
    int fds[2];
    if (::pipe(fds) != 0) return 2;
    ::close(fds[0]);
    const bool failed = ::write(fds[1], "x", 1) < 0;  // EPIPE, and no SIGPIPE
    return failed && stop_signal() == 0 ? 0 : 1;
  });
  ASSERT_TRUE(WIFEXITED(status)) << "SIGPIPE ended the process (status " << status << ")";
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace cctune::runtime
