#pragma once
// Where the profiler half's records go: one file per process (WorkloadFile,
// $CCTUNE_WORKLOAD/workload.<host>.<pid>.<tag>.json, cctune.workload/1, format "nccl-profiler"),
// replaced atomically every CCTUNE_WORKLOAD_INTERVAL seconds, when the last live communicator
// is finalized and at exit; a destroy while others live only keeps its records (FinishedComms),
// so a job that splits and destroys communicators often pays no write per destroy. Only the
// process that made the sink writes: a forked child's copy stays quiet (forget_in_child). The
// settings are read once per process (WorkloadSettings).
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "workload/profiler/comm_recorder.hpp"
#include "workload/profiler/finished_comms.hpp"
#include "workload/profiler/follow_sampler.hpp"
#include "tuner/plugin/nccl_tuner_abi.hpp"
#include "workload/profiler/workload_file.hpp"
#include "tuner/profile/profile.hpp"

namespace cctune::tuner {

// CCTUNE_WORKLOAD_EVENTS and the control file's words.
enum class EventMode { Timing, Calls, Off };
std::optional<EventMode> parse_event_mode(std::string_view word);

// The events NCCL is asked for. Every call gets the events that count it: v5's API events
// (which also give the groups), or, where NCCL has none (v4), its task event. One call in
// CCTUNE_WORKLOAD_TIMING_EVERY is "followed": its task event too (the algorithm, protocol and
// channels NCCL applied) and, in timing mode, its kernel channels (GPU time). NCCL spends time
// on each task event it delivers and adds proxy work to each call with kernel-channel events,
// which is why only a sample gets them (docs/PERFORMANCE.md has the figures). Off asks for
// nothing, except, where the control file is polled (`polls`: an interval is set) and NCCL has
// them, the group API event: it is on that event that the file is re-read, so off can be undone.
struct EventMasks {
  int every_call = 0;
  int followed = 0;
};
EventMasks event_masks_of(EventMode mode, bool api_events, bool polls);

struct WorkloadSettings {
  std::string directory;  // empty: the profiler half records nothing
  std::string problem;    // why not, when CCTUNE_WORKLOAD is set but unusable (one line)
  std::string note;       // a setting that was ignored (bad interval or mode), with what is used instead
  std::uint64_t interval_s = 60;  // 0: only when the last live communicator is destroyed and at exit
  EventMode mode = EventMode::Timing;
  std::uint64_t timing_every = 100;  // one call in this many is followed, on average (1: every call)
  std::uint64_t follow_gap_ms = 10;  // at most one followed call per this many ms on a thread (0: no bound)
  std::optional<std::uint64_t> job_steps;  // CCTUNE_WORKLOAD_STEPS: the steps the job runs (step_cadence.hpp)
  bool step_times = false;                 // CCTUNE_WORKLOAD_STEP_TIMES=1: time the steps (call_timeline.hpp)
};

// Pure: checks the values (as the environment gives them, nullptr when unset). The directory
// must exist, be a directory and writable, and not be a symbolic link.
WorkloadSettings read_workload_settings(const char* directory, const char* interval, const char* events,
                                        const char* timing_every = nullptr, const char* follow_gap_ms = nullptr,
                                        const char* job_steps = nullptr, const char* step_times = nullptr);

// read_workload_settings of this process's CCTUNE_WORKLOAD* variables (docs/WORKLOAD.md).
WorkloadSettings workload_settings_from_environment();

class WorkloadSink {
 public:
  // `tags`: where the file name's tag comes from (WorkloadFile; tests give their own).
  explicit WorkloadSink(WorkloadSettings settings, WorkloadFile::TagSource tags = &random_file_tag);
  const WorkloadSettings& settings() const noexcept { return settings_; }
  // The file, as planned before the first write (WorkloadFile::path()).
  std::string path();
  // Whether NCCL delivers v5's API events (set by the first communicator's init: NCCL loaded
  // the v5 or the v4 interface). Until then, v5 is assumed.
  void use_api_events(bool yes);
  // What NCCL is told between followed calls (every call's events; all of them when every call
  // is followed).
  int activation_mask() const noexcept;
  // The mode from now on (the control file's word, or cctune_profiler_events()).
  void set_mode(EventMode mode);

  // Called as each call starts, on the calling thread (v5: its group API event; v4: its task
  // event): asks NCCL for the followed call's events on the next call when this thread's
  // `sampler` (the thread's) says so. NCCL reads its mask as a call starts, so the flip takes
  // effect there.
  void sample_next_call(FollowSampler& sampler) noexcept;

  void add(CommRecorder* recorder);
  // A group of `recorder`'s calls (GroupCollector), recorded if the recorder is still live: the
  // group may be closed on a thread after the communicator was destroyed on another.
  // `over_bound`: too many members, only counted.
  void add_group(CommRecorder* recorder, std::uint64_t serial, const ShapeKey* members, std::size_t n, bool over_bound);
  // Whether NCCL's mask, as it stands, asks for task events: read as a group starts, before
  // sample_next_call() flips it, it says whether this group's calls are followed.
  bool following_now() const noexcept;
  // Keeps what it recorded for the file, then forgets it (the caller deletes it).
  struct Removed {
    bool none_live = false;      // it was the last live communicator: time to write
    bool first_dropped = false;  // the finished store was full: the first communicator not kept
  };
  Removed remove(CommRecorder* recorder);
  static std::string dropped_warning();  // for NCCL's log, once, at first_dropped
  // Cheap unless an interval has passed: then re-reads the control file and writes.
  void tick();
  // Throws EnvironmentError when the file cannot be written. A no-op in any process but the
  // one that made the sink (a child forked without the plugin's fork handler, as clone() does).
  void write();
  // In a forked child, which holds a copy of the parent's sink (perhaps with a lock another
  // parent thread held at the fork): asks NCCL for no more events, takes no lock.
  void forget_in_child() noexcept;
  // Judge each write's shapes against `profile` (production_watch.hpp); findings go into the
  // file and, once per (communicator, collective, size), into NCCL's log through `log`.
  // `profile` must outlive the process's static destructors: the last write runs among them
  // (production_profile()'s is never destroyed).
  void watch_with(const Profile* profile, nccl_abi::Logger log);
  // What the tuner half did in this process, asked at every write (profiler_plugin.cpp gives it
  // the same library's record; nullptr: none, as in tests that link the sink alone).
  using TunerReportSource = std::optional<workload::TunerReport> (*)();
  void tuner_report_with(TunerReportSource source) { tuner_report_ = source; }
  // Every communicator's events off, for good (the plugin gave up).
  void silence() noexcept;

 private:
  void apply_control_file();
  void write_when_due(std::uint64_t due, std::uint64_t now);  // tick()'s rare part
  void apply_masks();  // with mutex_ held: the masks of `mode_` to NCCL
  void report(const workload::Communicator& comm);  // with mutex_ held

  // What every call reads, first and in one cache line (hot_path.hpp says why): the
  // settings tick() and sample_next_call() use, copied out of settings_, and the masks.
  alignas(64) const std::uint64_t interval_s_;
  const std::uint64_t timing_every_;
  const std::uint64_t follow_gap_ns_;
  std::atomic<int> every_mask_, followed_mask_;  // event_masks_of(mode_, ...); both 0 once silenced
  std::atomic<int*> nccl_mask_{nullptr};  // NCCL's one mask for all communicators (2.28)
  std::atomic<std::uint64_t> next_write_ns_;
  std::atomic<bool> follow_next_{false};

  WorkloadSettings settings_;
  const long owner_pid_;
  std::string source_;
  std::mutex write_mutex_;  // one write at a time, each from its own snapshot; taken before mutex_
  WorkloadFile file_;       // with write_mutex_ held
  EventMode mode_;        // with mutex_ held
  bool silenced_ = false;  // with mutex_ held
  std::atomic<bool> api_events_{true};
  std::atomic<bool> api_events_known_{false};
  std::mutex mutex_;  // taken before any recorder's
  std::vector<CommRecorder*> live_;
  FinishedComms finished_;
  const Profile* profile_ = nullptr;
  TunerReportSource tuner_report_ = nullptr;
  nccl_abi::Logger log_ = nullptr;
  std::set<std::tuple<std::string, Collective, std::uint64_t>> warned_;
};

}  // namespace cctune::tuner
