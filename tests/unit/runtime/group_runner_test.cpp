// The supervisor against hostile or broken workers (issue 15, items 4-6): real processes
// (shell scripts standing in for `cctune __worker`), real pipes, one supervisor rank.
#include "runtime/group_runner.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "support/thread_comm.hpp"

namespace cctune::runtime {
namespace {

using Clock = std::chrono::steady_clock;

struct Scenario {
  GroupOutcome outcome;
  double seconds = 0;
  long points = 0;
};

// Runs one group of one worker whose body is `script` (it writes messages on fd 3).
Scenario run_script(const std::string& script, double group_timeout_s = 20) {
  const auto dir = std::filesystem::temp_directory_path() / ("cctune-gr-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string exe = (dir / "worker.sh").string();
  {
    std::ofstream out(exe);
    out << "#!/bin/sh\nread spec\n" << script << "\n";
  }
  ::chmod(exe.c_str(), 0755);
  GroupSettings settings;
  settings.executable = exe;
  settings.log_dir = dir.string();
  settings.base_env = {{"PATH", "/usr/bin:/bin"}};
  settings.point_timeout_s = group_timeout_s;
  settings.group_timeout_s = group_timeout_s;
  settings.tick_s = 0.05;
  ConfigGroup group;
  group.label = "g";
  LocalWorker w;
  w.spec.host = "localhost";
  Scenario s;
  GroupCallbacks cb;
  cb.on_point = [&](long, const nlohmann::json&) { ++s.points; };
  testing::ThreadGroup world(1);
  testing::ThreadComm comm(world, 0);
  const auto start = Clock::now();
  s.outcome = run_group(comm, group, {w}, {}, settings, cb);
  s.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return s;
}

TEST(GroupRunner, WellBehavedWorkerSucceeds) {
  const auto s = run_script(R"(echo '{"type":"point","point":0,"result":{}}' >&3; echo '{"type":"done"}' >&3)");
  EXPECT_EQ(s.outcome.status, GroupStatus::Ok) << s.outcome.reason;
  EXPECT_EQ(s.points, 1);
}

// Item 5: a message with a field missing or of the wrong type fails the group, not the supervisor.
TEST(GroupRunner, MissingFieldFailsTheGroupNotTheSupervisor) {
  const auto s = run_script(R"(echo '{"type":"point","point":0}' >&3; echo '{"type":"done"}' >&3)");
  EXPECT_EQ(s.outcome.status, GroupStatus::Failed);
  EXPECT_NE(s.outcome.reason.find("malformed message"), std::string::npos) << s.outcome.reason;
}

TEST(GroupRunner, MistypedFieldFailsTheGroupNotTheSupervisor) {
  for (const char* msg : {R"({"type":"progress","point":"x"})", R"({"type":"progress","point":1e300})", R"({"type":"uid","uid":7})",
                          R"({"type":"point","point":0,"result":[1]})", R"({"type":"error","message":5,"kind":[]})"}) {
    const auto s = run_script(std::string("echo '") + msg + "' >&3; echo '{\"type\":\"done\"}' >&3");
    EXPECT_EQ(s.outcome.status, GroupStatus::Failed) << msg;
  }
}

// Item 6: a line without end is cut off at the limit; the supervisor does not buffer it.
TEST(GroupRunner, OverlongLineFailsTheGroupAtTheLimit) {
  const auto s = run_script("head -c 50000000 /dev/zero | tr '\\0' x >&3; echo '{\"type\":\"done\"}' >&3", 20);
  EXPECT_EQ(s.outcome.status, GroupStatus::Failed);
  EXPECT_NE(s.outcome.reason.find("longer than"), std::string::npos) << s.outcome.reason;
  EXPECT_LT(s.seconds, 15);
}

// Item 4: the worker finished and exited, but a process it started still holds fd 3.
TEST(GroupRunner, GrandchildHoldingTheMessagePipeDoesNotDelayTheGroup) {
  const auto s = run_script(R"(echo '{"type":"point","point":0,"result":{}}' >&3; echo '{"type":"done"}' >&3
sleep 30 &
exit 0)");
  EXPECT_EQ(s.outcome.status, GroupStatus::Ok) << s.outcome.reason;
  EXPECT_EQ(s.points, 1);
  EXPECT_LT(s.seconds, 5);
}

}  // namespace
}  // namespace cctune::runtime
