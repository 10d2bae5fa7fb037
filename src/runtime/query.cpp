#include "runtime/query.hpp"

#include <unistd.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/error.hpp"
#include "runtime/worker_process.hpp"

namespace cctune::runtime {

GpuQuery query_gpus(const std::string& executable, const std::map<std::string, std::string>& env,
                    const std::string& scratch_dir, double timeout_s) {
  SpawnRequest req;
  req.executable = executable;
  req.args = {"__worker", "--query"};
  req.env = env;
  req.log_path = scratch_dir + "/cctune-query." + std::to_string(::getpid()) + ".out";
  auto proc = WorkerProcess::spawn(req);
  proc.close_stdin();
  const auto t0 = std::chrono::steady_clock::now();
  while (!proc.poll_exit()) {
    if (std::chrono::steady_clock::now() - t0 > std::chrono::duration<double>(timeout_s)) {
      proc.kill_and_reap();
      ::unlink(req.log_path.c_str());
      throw RuntimeFailure("`cctune __worker --query` (CUDA and NCCL discovery) did not answer within " +
                               std::to_string(static_cast<int>(timeout_s)) + " s",
                           "check the GPU driver with nvidia-smi");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::ifstream in(req.log_path);
  nlohmann::json answer;
  std::string other;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.front() == '{') {
      try {
        answer = nlohmann::json::parse(line);
      } catch (const nlohmann::json::exception&) {
      }
    } else if (!line.empty()) {
      other = line;
    }
  }
  ::unlink(req.log_path.c_str());
  if (answer.is_object() && answer.contains("error"))
    throw EnvironmentError(answer["error"].get<std::string>(), answer.value("fix", ""));
  if (!answer.is_object() || !answer.contains("device_count"))
    throw EnvironmentError("`cctune __worker --query` gave no answer (" + describe_wait_status(*proc.status()) +
                               (other.empty() ? "" : ": " + other) + ")",
                           "run `cctune __worker --query` by hand to see why");
  GpuQuery q;
  q.device_count = answer["device_count"].get<int>();
  q.nccl_version = answer.value("nccl_version", "");
  q.cuda = answer.value("cuda", "");
  return q;
}

}  // namespace cctune::runtime
