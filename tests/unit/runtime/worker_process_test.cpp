// Real processes, real pipes, real signals: the pieces the supervisor is built from.
#include "runtime/worker_process.hpp"

#include <gtest/gtest.h>
#include <poll.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "runtime/line_channel.hpp"
#include "runtime/protocol.hpp"

namespace cctune::runtime {
namespace {

std::string temp_log(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("cctune-rt-" + std::to_string(::getpid()) + "-" + name)).string();
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

SpawnRequest shell(const std::string& script, const std::string& log) {
  SpawnRequest r;
  r.executable = "/bin/sh";
  r.args = {"-c", script};
  r.env = {{"PATH", "/usr/bin:/bin"}};
  r.log_path = log;
  return r;
}

// The first message lines the worker sends on its message pipe (waits up to 5 s).
std::vector<std::string> first_messages(WorkerProcess& w) {
  LineReader reader(w.message_fd());
  std::vector<std::string> lines;
  for (int i = 0; i < 500 && lines.empty(); ++i) {
    pollfd p{w.message_fd(), POLLIN, 0};
    ::poll(&p, 1, 10);
    reader.read_available(lines);
  }
  return lines;
}

void wait_exit(WorkerProcess& w) {
  for (int i = 0; i < 500 && !w.poll_exit(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

TEST(WorkerEnvironment, StripsLauncherVariablesAndKeepsTheCallersNccl) {
  const std::map<std::string, std::string> base = {
      {"PATH", "/bin"}, {"OMPI_COMM_WORLD_RANK", "1"}, {"PMIX_RANK", "1"}, {"PMI_RANK", "1"}, {"SLURM_PROCID", "1"},
      {"SLURM_STEP_ID", "0"}, {"SLURM_JOB_ID", "42"}, {"NCCL_DEBUG", "WARN"}, {"NCCL_NVLS_ENABLE", "1"}};
  const auto env = worker_environment(base, {{"NCCL_P2P_DISABLE", "1"}});
  for (const auto& [k, v] : env) {
    EXPECT_NE(k.rfind("OMPI_", 0), 0u) << k;
    EXPECT_NE(k.rfind("PMIX_", 0), 0u) << k;
    EXPECT_NE(k.rfind("PMI_", 0), 0u) << k;
  }
  EXPECT_EQ(env.count("SLURM_PROCID"), 0u);
  EXPECT_EQ(env.count("SLURM_STEP_ID"), 0u);
  EXPECT_EQ(env.at("SLURM_JOB_ID"), "42");
  EXPECT_EQ(env.at("NCCL_DEBUG"), "WARN");
  EXPECT_EQ(env.at("NCCL_P2P_DISABLE"), "1");
  EXPECT_EQ(env.at("NCCL_NVLS_ENABLE"), "1");  // the caller's setting reaches NCCL unchanged
}

// The whole contract: caller's environment (less the launcher's) + group settings + the
// sweep's own variables, and nothing else; NVLS only where the caller or the group set it.
TEST(WorkerEnvironment, IsCallerPlusGroupAndNothingElse) {
  const std::map<std::string, std::string> caller = {
      {"PATH", "/bin"}, {"HOME", "/root"}, {"NCCL_DEBUG", "INFO"}, {"OMPI_COMM_WORLD_SIZE", "2"}, {"NCCL_IB_HCA", "mlx5_0"}};
  const std::map<std::string, std::string> group = {
      {"NCCL_BUFFSIZE", "8388608"}, {"NCCL_IB_HCA", "=mlx5_1"}, {"NCCL_TUNER_PLUGIN", "STATIC_PLUGIN"}};
  const std::map<std::string, std::string> want = {{"PATH", "/bin"},
                                                   {"HOME", "/root"},
                                                   {"NCCL_DEBUG", "INFO"},
                                                   {"NCCL_IB_HCA", "=mlx5_1"},
                                                   {"NCCL_BUFFSIZE", "8388608"},
                                                   {"NCCL_TUNER_PLUGIN", "STATIC_PLUGIN"}};
  EXPECT_EQ(worker_environment(caller, group), want);
  EXPECT_EQ(worker_environment(caller, group).count("NCCL_NVLS_ENABLE"), 0u);

  auto caller_off = caller;
  caller_off["NCCL_NVLS_ENABLE"] = "0";
  EXPECT_EQ(worker_environment(caller_off, group).at("NCCL_NVLS_ENABLE"), "0");
  auto group_off = group;
  group_off["NCCL_NVLS_ENABLE"] = "0";
  EXPECT_EQ(worker_environment(caller, group_off).at("NCCL_NVLS_ENABLE"), "0");

  const std::map<std::string, std::string> nccl = {{"NCCL_DEBUG", "INFO"},
                                                   {"NCCL_IB_HCA", "=mlx5_1"},
                                                   {"NCCL_BUFFSIZE", "8388608"},
                                                   {"NCCL_TUNER_PLUGIN", "STATIC_PLUGIN"},
                                                   {"NCCL_NVLS_ENABLE", "0"}};
  EXPECT_EQ(nccl_variables(worker_environment(caller_off, group)), nccl);
}

// A caller who deployed a profile (`set -a; . nccl.env`) has CCTUNE_PROFILE set: no group reads
// it, or "NCCL defaults" would run the old profile's rules (review R7); a group that sets its own
// (verify's profile side) keeps it.
TEST(WorkerEnvironment, NoGroupReadsTheCallersDeployedProfile) {
  const std::map<std::string, std::string> caller = {{"PATH", "/bin"}, {"CCTUNE_PROFILE", "/old/profile.json"}};
  EXPECT_EQ(worker_environment(caller, {{"NCCL_TUNER_PLUGIN", "STATIC_PLUGIN"}}).count("CCTUNE_PROFILE"), 0u);
  EXPECT_EQ(worker_environment(caller, {{"CCTUNE_PROFILE", "/new/profile.json"}}).at("CCTUNE_PROFILE"), "/new/profile.json");
}

// Results record the register-local group's switch (issue 35): the one non-NCCL_ variable the
// worker honours is part of its NCCL environment; PyTorch's other TORCH_* variables are not.
TEST(WorkerProcess, NcclVariablesKeepTheBufferRegistrationSwitch) {
  const auto env = worker_environment({{"PATH", "/bin"}, {"TORCH_NCCL_BLOCKING_WAIT", "1"}, {"NCCL_DEBUG", "INFO"}},
                                      {{"TORCH_NCCL_USE_TENSOR_REGISTER_ALLOCATOR_HOOK", "1"}});
  const std::map<std::string, std::string> want = {{"NCCL_DEBUG", "INFO"}, {"TORCH_NCCL_USE_TENSOR_REGISTER_ALLOCATOR_HOOK", "1"}};
  EXPECT_EQ(nccl_variables(env), want);
}

TEST(WorkerProcess, SpawnedProcessSeesOnlyTheGivenEnvironment) {
  const std::string log = temp_log("env.log");
  auto env = worker_environment({{"PATH", "/usr/bin:/bin"}, {"OMPI_COMM_WORLD_RANK", "0"}, {"PMIX_NAMESPACE", "x"}},
                                {{"NCCL_BUFFSIZE", "8388608"}});
  SpawnRequest r = shell("env", log);
  r.env = env;
  auto w = WorkerProcess::spawn(r);
  wait_exit(w);
  ASSERT_TRUE(w.exited_ok());
  const std::string out = slurp(log);
  EXPECT_NE(out.find("NCCL_BUFFSIZE=8388608"), std::string::npos) << out;
  EXPECT_EQ(out.find("NCCL_NVLS_ENABLE"), std::string::npos) << out;  // cctune adds no NVLS setting
  EXPECT_EQ(out.find("OMPI_"), std::string::npos) << out;
  EXPECT_EQ(out.find("PMIX_"), std::string::npos) << out;
  std::filesystem::remove(log);
}

TEST(WorkerProcess, PipesCarryLinesBothWays) {
  const std::string log = temp_log("pipe.log");
  // Reads one line on stdin and answers it on fd 3; prints noise on stdout (the log).
  auto w = WorkerProcess::spawn(shell("echo NCCL INFO noise; read x; echo \"{\\\"type\\\":\\\"progress\\\",\\\"point\\\":$x}\" >&3", log));
  ASSERT_TRUE(write_line(w.stdin_fd(), "5"));
  const std::vector<std::string> lines = first_messages(w);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(decode(lines[0]).body["point"], 5);
  wait_exit(w);
  EXPECT_TRUE(w.exited_ok());
  EXPECT_EQ(slurp(log), "NCCL INFO noise\n");
  std::filesystem::remove(log);
}

TEST(WorkerProcess, ExitCodesAndSignalsAreNamed) {
  const std::string log = temp_log("sig.log");
  auto a = WorkerProcess::spawn(shell("kill -ABRT $$", log));
  wait_exit(a);
  ASSERT_TRUE(a.status());
  EXPECT_EQ(describe_wait_status(*a.status()), "killed by signal SIGABRT");
  auto e = WorkerProcess::spawn(shell("exit 7", log));
  wait_exit(e);
  EXPECT_EQ(describe_wait_status(*e.status()), "exit code 7");
  std::filesystem::remove(log);
}

TEST(WorkerProcess, KillReachesTheWholeProcessGroup) {
  const std::string log = temp_log("kill.log");
  // The worker starts a grandchild; both must die with one kill.
  auto w = WorkerProcess::spawn(shell("sleep 300 & echo $! >&3; wait", log));
  const std::vector<std::string> lines = first_messages(w);
  ASSERT_EQ(lines.size(), 1u);
  const pid_t grandchild = std::stoi(lines[0]);
  EXPECT_EQ(::getpgid(grandchild), w.pid());  // its own process group, led by the worker
  w.kill_and_reap();
  EXPECT_EQ(describe_wait_status(*w.status()), "killed by signal SIGKILL");
  bool gone = false;
  for (int i = 0; i < 200 && !gone; ++i) {
    // The grandchild is reparented and reaped by init; it is gone once kill(0) fails.
    gone = ::kill(grandchild, 0) != 0 || std::filesystem::exists("/proc/" + std::to_string(grandchild)) == false;
    if (!gone) {
      std::ifstream stat("/proc/" + std::to_string(grandchild) + "/stat");
      std::string pid, comm, state;
      stat >> pid >> comm >> state;
      gone = state == "Z";  // killed, waiting for its new parent to reap it
    }
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(gone);
  std::filesystem::remove(log);
}

TEST(WorkerProcess, DestructorKillsARunningWorker) {
  const std::string log = temp_log("dtor.log");
  pid_t pid;
  {
    auto w = WorkerProcess::spawn(shell("sleep 300", log));
    pid = w.pid();
  }
  EXPECT_NE(::kill(pid, 0), 0);  // reaped: no such process
  std::filesystem::remove(log);
}

TEST(WorkerProcess, SpawnFailureIsAnError) {
  SpawnRequest r = shell("true", temp_log("none.log"));
  r.executable = "/nonexistent/cctune";
  EXPECT_THROW(WorkerProcess::spawn(r), std::exception);
}

}  // namespace
}  // namespace cctune::runtime
