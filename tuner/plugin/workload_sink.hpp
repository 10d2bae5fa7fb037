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
  std::uint64_t timing_every = 100;  // timing mode: one call in this many is timed on the GPU (1: every call)
};

// Pure: checks the values (as the environment gives them, nullptr when unset). The directory
// must exist, be a directory and writable, and not be a symbolic link.
WorkloadSettings read_workload_settings(const char* directory, const char* interval, const char* events,
                                        const char* timing_every = nullptr);

class WorkloadSink {
 public:
  explicit WorkloadSink(WorkloadSettings settings);
  const WorkloadSettings& settings() const noexcept { return settings_; }
  const std::string& path() const noexcept { return path_; }
  // What NCCL is told between sampled calls: the mode's events, kernel channels only when every
  // call is timed.
  int activation_mask() const noexcept;

  // Called as each NCCL call starts (its group API event, on the calling thread): in timing mode
  // it asks NCCL for kernel-channel events on the next call once every `timing_every` calls.
  // Kernel-channel timing makes NCCL add proxy work to the timed call (bench/
  // profiler_overhead.sh measured about 10 us per call at small sizes on two H100s), so timing
  // every call would cost a job more than the one-percent the profiler half may take.
  void sample_next_call() noexcept;

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
  std::atomic<int> mask_;  // the mode's whole mask (timing: kernel channels included)
  std::atomic<int*> nccl_mask_{nullptr};  // NCCL's one mask for all communicators (2.28)
  std::atomic<bool> timing_next_{false};
  std::atomic<std::uint64_t> next_write_ns_;
  std::mutex mutex_;  // taken before any recorder's
  std::vector<CommRecorder*> live_;
  std::vector<workload::Communicator> finished_;
  const Profile* profile_ = nullptr;
  nccl_abi::Logger log_ = nullptr;
  std::set<std::tuple<std::string, Collective, std::uint64_t>> warned_;
};

}  // namespace cctune::tuner
