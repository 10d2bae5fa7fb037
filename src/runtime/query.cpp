#include "runtime/query.hpp"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>
#include <thread>

#include "core/error.hpp"
#include "core/error_record.hpp"
#include "core/json_depth.hpp"
#include "runtime/worker_process.hpp"

namespace cctune::runtime {
namespace {

// A directory only this process can write (mkdtemp, mode 0700) in a possibly shared place
// such as /tmp, removed with what it holds: no one can plant a symlink at a name we use.
class PrivateDir {
 public:
  explicit PrivateDir(const std::string& parent) {
    std::string pattern = parent + "/cctune-query.XXXXXX";
    if (!::mkdtemp(pattern.data()))
      throw EnvironmentError("cannot create a private directory in " + parent + ": " + std::strerror(errno),
                             "make " + parent + " writable, or set TMPDIR to a writable directory");
    path_ = pattern;
  }
  ~PrivateDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  PrivateDir(const PrivateDir&) = delete;
  PrivateDir& operator=(const PrivateDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// What one `cctune __worker <flag>` printed: its last JSON line, the last other line, and
// how it ended; nothing when it did not end within `timeout_s` (it is then killed).
struct WorkerAnswer {
  nlohmann::json json;
  std::string other_line;
  int wait_status = 0;
};

std::optional<WorkerAnswer> ask_worker(const std::string& executable, const std::string& flag,
                                       const std::map<std::string, std::string>& env, const std::string& scratch_dir,
                                       double timeout_s) {
  SpawnRequest req;
  req.executable = executable;
  req.args = {"__worker", flag};
  req.env = env;
  const PrivateDir dir(scratch_dir);
  req.log_path = dir.path() + "/answer.out";
  auto proc = WorkerProcess::spawn(req);
  proc.close_stdin();
  const auto t0 = std::chrono::steady_clock::now();
  while (!proc.poll_exit()) {
    if (std::chrono::steady_clock::now() - t0 > std::chrono::duration<double>(timeout_s)) {
      proc.kill_and_reap();
      return std::nullopt;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  WorkerAnswer a;
  a.wait_status = *proc.status();
  std::ifstream in(req.log_path);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.front() == '{') {
      try {
        if (!json_nests_deeper_than(line)) a.json = nlohmann::json::parse(line);
        if (!json_float_beyond_int(a.json).empty()) a.json = nullptr;
      } catch (const nlohmann::json::exception&) {
      }
    } else if (!line.empty()) {
      a.other_line = line;
    }
  }
  return a;
}

}  // namespace

GpuQuery query_gpus(const std::string& executable, const std::map<std::string, std::string>& env,
                    const std::string& scratch_dir, double timeout_s) {
  const auto a = ask_worker(executable, "--query", env, scratch_dir, timeout_s);
  if (!a)
    throw RuntimeFailure("`cctune __worker --query` (CUDA and NCCL discovery) did not answer within " +
                             std::to_string(static_cast<int>(timeout_s)) + " s",
                         "check the GPU driver with nvidia-smi");
  const nlohmann::json& answer = a->json;
  if (answer.is_object() && answer.contains("error")) {
    const auto error = error_record_from_json(answer["error"]);
    rethrow(error.value_or(ErrorRecord{ErrorKind::Environment, "`cctune __worker --query` failed and said nothing of why", {}, {}}));
  }
  if (!answer.is_object() || !answer.contains("device_count"))
    throw EnvironmentError("`cctune __worker --query` gave no answer (" + describe_wait_status(a->wait_status) +
                               (a->other_line.empty() ? "" : ": " + a->other_line) + ")",
                           "run `cctune __worker --query` by hand to see why");
  GpuQuery q;
  q.device_count = answer["device_count"].get<int>();
  q.nccl_version = answer.value("nccl_version", "");
  q.cuda = answer.value("cuda", "");
  // "runtime R, driver D", split once here where the text enters.
  constexpr std::string_view runtime_word = "runtime ", driver_word = ", driver ";
  const std::size_t driver_at = q.cuda.find(driver_word);
  if (q.cuda.starts_with(runtime_word) && driver_at != std::string::npos && driver_at > runtime_word.size() &&
      driver_at + driver_word.size() < q.cuda.size()) {
    q.cuda_runtime = q.cuda.substr(runtime_word.size(), driver_at - runtime_word.size());
    q.cuda_driver = q.cuda.substr(driver_at + driver_word.size());
  }
  return q;
}

RuntimeVersions query_versions(const std::string& executable, const std::map<std::string, std::string>& env,
                               const std::string& scratch_dir, double timeout_s) {
  RuntimeVersions v;
  std::optional<WorkerAnswer> a;
  try {
    a = ask_worker(executable, "--versions", env, scratch_dir, timeout_s);
  } catch (const Error& e) {
    v.nccl = v.cuda = "not found (" + e.what_only() + ")";
    return v;
  }
  if (!a) {
    v.nccl = v.cuda = "not found (the NCCL module did not answer within " + std::to_string(static_cast<int>(timeout_s)) + " s)";
    return v;
  }
  const nlohmann::json& j = a->json;
  if (!j.is_object()) {
    v.nccl = v.cuda = "not found (the NCCL module query " + describe_wait_status(a->wait_status) +
                      (a->other_line.empty() ? "" : ": " + a->other_line) + ")";
    return v;
  }
  if (j.contains("error")) {
    const auto error = error_record_from_json(j["error"]);
    v.nccl = v.cuda = "not found (" + (error ? error->message : std::string("no reason given")) + ")";
    return v;
  }
  v.module_path = j.value("module", "");
  v.nccl = j.contains("nccl_version") ? j.value("nccl_version", "") : "not found (" + j.value("nccl_error", "") + ")";
  v.cuda = j.contains("cuda") ? j.value("cuda", "") : "not found (" + j.value("cuda_error", "") + ")";
  return v;
}

}  // namespace cctune::runtime
