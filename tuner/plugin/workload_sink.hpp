#pragma once
// Where the profiler half's records go: one file per process,
// $CCTUNE_WORKLOAD/workload.<host>.<pid>.json (cctune.workload/1, format "nccl-profiler"),
// replaced atomically every CCTUNE_WORKLOAD_INTERVAL seconds, when a communicator is
// finalized and at exit. The settings are read once per process (WorkloadSettings).
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "tuner/plugin/comm_recorder.hpp"
#include "tuner/plugin/nccl_tuner_abi.hpp"
#include "tuner/profile/profile.hpp"

namespace cctune::tuner {

// CCTUNE_WORKLOAD_EVENTS and the control file's words.
enum class EventMode { Timing, Calls, Off };
std::optional<EventMode> parse_event_mode(std::string_view word);
int activation_mask_of(EventMode mode);

struct WorkloadSettings {
  std::string directory;  // empty: the profiler half records nothing
  std::string problem;    // why not, when CCTUNE_WORKLOAD is set but unusable (one line)
  std::string note;       // a setting that was ignored (bad interval or mode), with what is used instead
  std::uint64_t interval_s = 60;  // 0: only at finalize and exit
  EventMode mode = EventMode::Timing;
};

// Pure: checks the values (as the environment gives them, nullptr when unset). The directory
// must exist, be a directory and writable, and not be a symbolic link.
WorkloadSettings read_workload_settings(const char* directory, const char* interval, const char* events);

class WorkloadSink {
 public:
  explicit WorkloadSink(WorkloadSettings settings);
  const WorkloadSettings& settings() const noexcept { return settings_; }
  const std::string& path() const noexcept { return path_; }
  int activation_mask() const noexcept { return mask_.load(std::memory_order_relaxed); }

  void add(CommRecorder* recorder);
  // Keeps what it recorded for the file, then forgets it (the caller deletes it).
  void remove(CommRecorder* recorder);
  // Cheap unless an interval has passed: then re-reads the control file and writes.
  void tick();
  void write();  // throws EnvironmentError when the file cannot be written
  // Judge each write's shapes against `profile` (production_watch.hpp); findings go into the
  // file and, once per (communicator, collective, size), into NCCL's log through `log`.
  void watch_with(const Profile* profile, nccl_abi::Logger log);
  // Every communicator's events off, for good (the plugin gave up).
  void silence() noexcept;

 private:
  void apply_control_file();
  void report(const workload::Communicator& comm);  // with mutex_ held

  WorkloadSettings settings_;
  std::string path_;
  std::string source_;
  std::atomic<int> mask_;
  std::atomic<std::uint64_t> next_write_ns_;
  std::mutex mutex_;  // taken before any recorder's
  std::vector<CommRecorder*> live_;
  std::vector<workload::Communicator> finished_;
  const Profile* profile_ = nullptr;
  nccl_abi::Logger log_ = nullptr;
  std::set<std::tuple<std::string, Collective, std::uint64_t>> warned_;
};

}  // namespace cctune::tuner
