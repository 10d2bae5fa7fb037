#pragma once
// What the tests of the profiler half as a .so share (profiler_so_test.cpp,
// profiler_lifecycle_test.cpp): the plugin as NCCL loads it, fresh scratch folders, and the
// files it writes. Each test runs its scenarios in child processes (plugin_scenario.hpp).
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>
#include <nlohmann/json.hpp>

#include "unit/tuner/plugin/plugin_scenario.hpp"
#include "profiler_driver.hpp"
#include "workload/workload_json.hpp"

namespace cctune::tuner::so_support {

using namespace scenario;
namespace fs = std::filesystem;

inline const nccl_abi::ProfilerV5& profiler_v5() {
  static const auto* p = static_cast<const nccl_abi::ProfilerV5*>(dlsym(open_plugin(), "ncclProfiler_v5"));
  if (!p) std::_Exit(3);
  return *p;
}

inline testing::ProfilerDriver driver() { return testing::ProfilerDriver{&profiler_v5()}; }

inline std::string fresh_dir(const std::string& name) {
  const std::string dir = std::string(CCTUNE_BINARY_DIR) + "/tests/profiler_so_test/" + name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

inline std::string host_in_file_names() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  std::string h;
  for (const char* c = host; *c; ++c) h.push_back(std::isalnum(static_cast<unsigned char>(*c)) || *c == '-' || *c == '.' || *c == '_' ? *c : '_');
  return h;
}

// Every workload file in `dir` (workload.<host>.<pid>.<tag>.json: any process's).
inline std::vector<std::string> workload_files(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("workload.", 0) == 0 && name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0) out.push_back(e.path().string());
  }
  return out;
}

// This process's file: workload.<host>.<pid>.<tag>.json, the tag drawn at random by the
// plugin. A path that does not exist when there is none yet.
inline std::string own_file(const std::string& dir) {
  const std::string prefix = "workload." + host_in_file_names() + "." + std::to_string(getpid()) + ".";
  std::vector<std::string> mine;
  for (const std::string& f : workload_files(dir))
    if (fs::path(f).filename().string().rfind(prefix, 0) == 0) mine.push_back(f);
  SCENARIO_CHECK(mine.size() <= 1);
  return mine.empty() ? dir + "/" + prefix + "none-yet.json" : mine[0];
}

inline workload::Workload read_workload(const std::string& path) {
  std::ifstream in(path);
  SCENARIO_CHECK(in.good());
  return workload::workload_from_json(nlohmann::json::parse(in));
}

inline std::size_t rss_kib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stoul(line.substr(6));
  return 0;
}

constexpr int api_events = testing::ProfilerDriver::api_events;
constexpr int task_events = nccl_abi::kProfileColl | nccl_abi::kProfileP2p;

inline void use_workload(const std::string& dir, const char* interval = "0", const char* events = nullptr) {
  setenv("CCTUNE_WORKLOAD", dir.c_str(), 1);
  setenv("CCTUNE_WORKLOAD_INTERVAL", interval, 1);
  if (events) setenv("CCTUNE_WORKLOAD_EVENTS", events, 1);
  else unsetenv("CCTUNE_WORKLOAD_EVENTS");
}

}  // namespace cctune::tuner::so_support
