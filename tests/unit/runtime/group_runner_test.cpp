// The supervisor against hostile or broken workers (issue 15, items 4-6): real processes
// (shell scripts standing in for `cctune __worker`), real pipes, one supervisor rank.
#include "runtime/group_runner.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <filesystem>
#include <fstream>

#include "collectives/engine.hpp"
#include "core/results_json.hpp"
#include "support/thread_comm.hpp"

namespace cctune::runtime {
namespace {

using Clock = std::chrono::steady_clock;

struct Scenario {
  GroupOutcome outcome;
  double seconds = 0;
  long points = 0;
  std::vector<PointResult> recorded;
};

// The group's plan in these tests: allreduce float32 of 8 B and 1 KiB on 2 ranks.
std::vector<PointSpec> plan_points() {
  std::vector<PointSpec> points(2);
  points[0].bytes = collective_bytes(Collective::AllReduce, 8, DType::Float32, 2);
  points[1].bytes = collective_bytes(Collective::AllReduce, 1024, DType::Float32, 2);
  return points;
}

// A worker's report of point `index` as the engine makes it, with `change` applied.
std::string point_line(long index, const std::function<void(nlohmann::json&)>& change = {}) {
  PointResult r = describe_point(plan_points()[static_cast<std::size_t>(index)]);
  r.batch_us = 2;
  nlohmann::json j = r;
  if (change) change(j);
  return "echo '{\"type\":\"progress\",\"point\":" + std::to_string(index) + "}' >&3; echo '" +
         nlohmann::json{{"type", "point"}, {"point", index}, {"result", j}}.dump() + "' >&3";
}

// Runs one group of one worker (NCCL rank `rank` of 2) whose body is `script` (it writes
// messages on fd 3).
Scenario run_script(const std::string& script, double group_timeout_s = 20, int rank = 0) {
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
  w.spec.nranks = 2;
  w.spec.rank = rank;
  Scenario s;
  GroupCallbacks cb;
  cb.on_point = [&](long, const PointResult& j) {
    ++s.points;
    s.recorded.push_back(j);
  };
  testing::ThreadGroup world(1);
  testing::ThreadComm comm(world, 0);
  const auto start = Clock::now();
  const auto points = plan_points();
  s.outcome = run_group(comm, group, {w}, points, settings, cb);
  s.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return s;
}

const char* const done_line = R"(echo '{"type":"done"}' >&3)";

TEST(GroupRunner, WellBehavedWorkerSucceeds) {
  const auto s = run_script(point_line(0) + "; " + point_line(1) + "; " + done_line);
  EXPECT_EQ(s.outcome.status, GroupStatus::Ok) << s.outcome.reason;
  EXPECT_EQ(s.points, 2);
}

// Issue 24 F9: point messages are checked against the plan and the sender; the group fails
// with a one-line reason and nothing after the forged message is recorded.
TEST(GroupRunner, PointMessagesOutsideThePlanFailTheGroup) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {point_line(0) + "; " + point_line(0), "reported twice"},
      {R"(echo '{"type":"progress","point":5}' >&3; echo '{"type":"point","point":5,"result":{}}' >&3)", "not among the group's 2 points"},
      {R"(echo '{"type":"progress","point":1}' >&3; )" + point_line(0).substr(point_line(0).find("; ") + 2), "not the point being measured"},
      {point_line(0, [](nlohmann::json& j) { j["size_bytes"] = 1024; }), "another size"},
      {point_line(0, [](nlohmann::json& j) { j["collective"] = "allgather"; }), "another collective"},
      {point_line(0, [](nlohmann::json& j) { j["config"]["algo"] = "ring"; }), "another config"},
      {point_line(0, [](nlohmann::json& j) { j["in_place"] = true; }), "another placement"},
      {point_line(0, [](nlohmann::json& j) { j["batch_us"] = -5; }), "point 0"},
  };
  for (const auto& [script, want] : cases) {
    const auto s = run_script(script + "; " + point_line(1) + "; " + done_line);
    EXPECT_EQ(s.outcome.status, GroupStatus::Failed) << script;
    EXPECT_NE(s.outcome.reason.find("point message refused: "), std::string::npos) << s.outcome.reason;
    EXPECT_NE(s.outcome.reason.find(want), std::string::npos) << s.outcome.reason;
    EXPECT_EQ(s.outcome.reason.find('\n'), std::string::npos);
    EXPECT_LE(s.points, 1) << script;  // what came before the forged message, nothing after
  }
}

TEST(GroupRunner, OnlyNcclRankZerosWorkerReportsPoints) {
  const auto s = run_script(point_line(0) + "; " + done_line, 20, /*rank=*/1);
  EXPECT_EQ(s.outcome.status, GroupStatus::Failed);
  EXPECT_NE(s.outcome.reason.find("NCCL rank 1, not rank 0's"), std::string::npos) << s.outcome.reason;
  EXPECT_EQ(s.points, 0);
}

TEST(GroupRunner, BandwidthIsRecomputedFromSizeAndTime) {
  const auto s = run_script(point_line(1, [](nlohmann::json& j) {
    j["algbw_GBps"] = 1000;
    j["busbw_GBps"] = 1000;
  }) + "; " + done_line);
  ASSERT_EQ(s.points, 1) << s.outcome.reason;
  // 1 KiB in 2 us: 0.512 GB/s; allreduce on 2 ranks moves 2 (n-1)/n of it per rank.
  EXPECT_NEAR(s.recorded[0].algbw_GBps, 0.512, 1e-9);
  EXPECT_NEAR(s.recorded[0].busbw_GBps, 0.512, 1e-9);
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
  const auto s = run_script(point_line(0) + "; " + done_line + R"(
sleep 30 &
exit 0)");
  EXPECT_EQ(s.outcome.status, GroupStatus::Ok) << s.outcome.reason;
  EXPECT_EQ(s.points, 1);
  EXPECT_LT(s.seconds, 5);
}

}  // namespace
}  // namespace cctune::runtime
