// A user's job under run_job_command, with real processes: what it leaves behind is ended
// after every run, it has no terminal, its output is bounded, and it cannot outlive cctune
// (review 2026-11-28 R2, R3, R4, R15). The job shim is the test build of `cctune __job-shim`
// (job_shim_main.cpp); hostile jobs are /bin/sh scripts.
#include "runtime/job_command.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/error.hpp"
#include "runtime/job_shim.hpp"
#include "runtime/worker_process.hpp"
#include "support/thrown.hpp"

namespace cctune::runtime {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// A `sleep` a job of this test started that still runs (never a pid reused by someone else's).
bool is_our_sleep(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline");
  std::string argv0;
  return pid > 0 && std::getline(in, argv0, '\0') && argv0 == "sleep";
}

class JobCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("cctune-job-" + std::to_string(::getpid()) + "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    for (const pid_t pid : started_)  // a failed check must not leave its daemon behind
      if (is_our_sleep(pid)) ::kill(pid, SIGKILL);
    fs::remove_all(dir_);
  }

  JobRunRequest request(const std::string& script, std::chrono::seconds limit = 60s) const {
    JobRunRequest r;
    r.command.argv = {"/bin/sh", "-c", script};
    r.env = {{"PATH", "/usr/bin:/bin"}, {"D", dir_.string()}};
    r.log_path = (dir_ / "job.log").string();
    r.time_limit = limit;
    r.shim = CCTUNE_TEST_JOB_SHIM;
    return r;
  }
  // The pid a job wrote to $D/<name>, waiting for it up to 10 s.
  pid_t pid_in(const std::string& name) {
    for (int i = 0; i < 1000; ++i) {
      std::ifstream in(dir_ / name);
      pid_t pid = 0;
      if (in >> pid && pid > 0) {
        started_.push_back(pid);
        return pid;
      }
      std::this_thread::sleep_for(10ms);
    }
    return 0;
  }
  std::string file(const std::string& name) const {
    std::ifstream in(dir_ / name);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  fs::path dir_;
  std::vector<pid_t> started_;
};

// Running, not a zombie waiting for its parent.
bool alive(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return false;
  const auto close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z';
}

bool gone_within(pid_t pid, std::chrono::seconds limit) {
  for (auto until = std::chrono::steady_clock::now() + limit; std::chrono::steady_clock::now() < until;) {
    if (!alive(pid)) return true;
    std::this_thread::sleep_for(20ms);
  }
  return !alive(pid);
}

// Starts a daemon in a session of its own (setsid), which writes its pid to $D/NAME.
std::string setsid_daemon(const std::string& name) {
  return "setsid sh -c 'echo $$ > \"$D/" + name + "\"; exec sleep 600' & while [ ! -s \"$D/" + name + "\" ]; do sleep 0.01; done; ";
}

TEST_F(JobCommandTest, EndsWhatTheJobLeftInItsProcessGroupAfterANormalEnd) {
  const JobRunResult r = run_job_command(request("sleep 600 & echo $! > \"$D/bg\"; exit 0"));
  const pid_t bg = pid_in("bg");
  ASSERT_GT(bg, 0);
  EXPECT_TRUE(r.exited_ok) << r.how;
  EXPECT_FALSE(alive(bg)) << "the job's background child outlived its run";
  EXPECT_EQ(r.leftovers_ended, 1);
}

TEST_F(JobCommandTest, EndsSetsidDaemonsAfterANormalEnd) {
  const JobRunResult r = run_job_command(request(setsid_daemon("daemon") + "exit 0"));
  const pid_t daemon = pid_in("daemon");
  ASSERT_GT(daemon, 0);
  EXPECT_TRUE(r.exited_ok) << r.how;
  EXPECT_FALSE(alive(daemon)) << "a daemon in its own session outlived the run";
  EXPECT_EQ(r.leftovers_ended, 1);
}

TEST_F(JobCommandTest, EndsSetsidDaemonsAfterATimeout) {
  const JobRunResult r = run_job_command(request(setsid_daemon("daemon") + "sleep 600", 2s));
  const pid_t daemon = pid_in("daemon");
  ASSERT_GT(daemon, 0);
  EXPECT_FALSE(r.exited_ok);
  EXPECT_NE(r.how.find("time limit"), std::string::npos) << r.how;
  EXPECT_FALSE(alive(daemon)) << "a daemon in its own session outlived a timed-out run";
  EXPECT_GE(r.leftovers_ended, 1);
}

TEST_F(JobCommandTest, ADaemonWritingToTheLogDoesNotGrowItAfterTheRun) {
  const JobRunResult r = run_job_command(request("(while :; do echo tick; sleep 0.02; done) & sleep 0.2; exit 0"));
  EXPECT_TRUE(r.exited_ok) << r.how;
  const auto size = fs::file_size(dir_ / "job.log");
  EXPECT_GT(size, 0u);
  std::this_thread::sleep_for(500ms);
  EXPECT_EQ(fs::file_size(dir_ / "job.log"), size) << "something still appends to job.log after the run";
}

TEST_F(JobCommandTest, AJobStoppedByATerminalReadFailsAtOnce) {
  // What `read < /dev/tty` does to a job in a background process group of the terminal's session.
  const JobRunResult r = run_job_command(request("kill -TTIN $$; exit 0", 40s));
  EXPECT_FALSE(r.exited_ok);
  EXPECT_NE(r.how.find("reads the terminal"), std::string::npos) << r.how;
  EXPECT_NE(r.fix.find("without a terminal"), std::string::npos) << r.fix;
  EXPECT_LT(r.wall_s, 30) << "waited for the time limit";
}

TEST_F(JobCommandTest, TheJobHasNoTerminalAndReadsNothing) {
  const JobRunResult r = run_job_command(request("cat /proc/self/stat > \"$D/stat\"; readlink /proc/self/fd/0 > \"$D/stdin\""));
  ASSERT_TRUE(r.exited_ok) << r.how;
  const std::string stat = file("stat");
  std::istringstream fields(stat.substr(stat.rfind(')') + 2));
  char state = 0;
  long ppid = 0, pgrp = 0, session = 0, tty = -1;
  fields >> state >> ppid >> pgrp >> session >> tty;
  EXPECT_NE(session, ::getsid(0)) << "the job runs in cctune's session (it may stop on the terminal)";
  EXPECT_EQ(tty, 0) << "the job has a controlling terminal";
  EXPECT_EQ(file("stdin"), "/dev/null\n");
}

TEST_F(JobCommandTest, KeepsTheFirstAndLastBytesOfAHugeOutput) {
  JobRunRequest req = request("echo BEGIN; head -c 5000000 /dev/zero | tr '\\0' x; echo; echo END");
  req.output_keep_bytes = 64 << 10;
  const JobRunResult r = run_job_command(req);
  ASSERT_TRUE(r.exited_ok) << r.how;
  const std::string log = file("job.log");
  EXPECT_LT(log.size(), 200u << 10) << "job.log is not bounded";
  EXPECT_EQ(log.rfind("BEGIN\n", 0), 0u);
  EXPECT_EQ(log.substr(log.size() - 4), "END\n");
  EXPECT_NE(log.find("bytes of the job's output dropped here"), std::string::npos);
  EXPECT_EQ(r.output_bytes, 5000000u + 6 + 1 + 4);
  EXPECT_EQ(r.output_dropped_bytes, r.output_bytes - 2 * (64 << 10));
}

TEST_F(JobCommandTest, AScriptWithoutShebangIsNamedAsSuch) {
  const fs::path script = dir_ / "train.sh";
  std::ofstream(script) << "echo hi\n";
  fs::permissions(script, fs::perms::owner_all);
  JobRunRequest req = request("");
  req.command.argv = {script.string()};
  const std::string text = cctune::testing::thrown_description<UsageError>([&] { run_job_command(req); });
  EXPECT_NE(text.find("is not a program the kernel can start (no #! line?)"), std::string::npos) << text;
  EXPECT_NE(text.find("-- bash " + script.string()), std::string::npos) << text;
}

// cctune SIGKILLed mid-run (here: a child process of the test, running run_job_command): the
// job and its setsid'd daemon end with it.
TEST_F(JobCommandTest, TheJobsTreeEndsWhenCctuneIsKilled) {
  const JobRunRequest req = request("echo $$ > \"$D/job\"; " + setsid_daemon("daemon") + "sleep 600");
  const pid_t cctune = ::fork();
  if (cctune == 0) {
    run_job_command(req);
    ::_exit(0);
  }
  const pid_t job = pid_in("job"), daemon = pid_in("daemon");
  ASSERT_GT(job, 0);
  ASSERT_GT(daemon, 0);
  ::kill(cctune, SIGKILL);
  ::waitpid(cctune, nullptr, 0);
  EXPECT_TRUE(gone_within(job, 10s)) << "the job outlived cctune";
  EXPECT_TRUE(gone_within(daemon, 10s)) << "the job's daemon outlived cctune";
}

// The race PR_SET_PDEATHSIG leaves open: cctune died before the shim asked for it. The shim sees
// a parent other than the one it was started for, and starts nothing.
TEST_F(JobCommandTest, TheShimStartsNothingWhenItsParentIsGone) {
  SpawnRequest spawn{CCTUNE_TEST_JOB_SHIM,
                     job_shim_args(1, 1024, {"/bin/sh", "-c", "touch \"$D/ran\""}),
                     {{"PATH", "/usr/bin:/bin"}, {"D", dir_.string()}},
                     (dir_ / "shim.log").string(),
                     true};
  WorkerProcess shim = WorkerProcess::spawn(spawn);
  ASSERT_TRUE(shim.reap_until(std::chrono::steady_clock::now() + 20s));
  EXPECT_FALSE(shim.exited_ok());
  std::this_thread::sleep_for(200ms);
  EXPECT_FALSE(fs::exists(dir_ / "ran"));
}

}  // namespace
}  // namespace cctune::runtime
