#include "workload/profiler/workload_sink.hpp"

#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/files.hpp"
#include "core/text.hpp"
#include "workload/profiler/follow_sampler.hpp"
#include "workload/profiler/hot_path.hpp"
#include "workload/profiler/nccl_profiler_abi.hpp"
#include "workload/profiler/production_watch.hpp"
#include "workload/workload_json.hpp"

namespace cctune::tuner {
namespace {

constexpr std::size_t max_directory_bytes = 1024;  // longer is refused: the file name must fit PATH_MAX
constexpr std::uint64_t max_interval_s = 86400;
constexpr std::uint64_t max_timing_every = 1000000;
constexpr std::uint64_t max_follow_gap_ms = 60000;
constexpr std::uint64_t max_job_steps = 1000000000;
constexpr const char* control_file_name = "cctune-events";

std::string check_directory(const std::string& dir) {
  const std::string shown = text::log_text(dir, 200);
  if (dir.size() > max_directory_bytes)
    return "CCTUNE_WORKLOAD is " + std::to_string(dir.size()) + " bytes long (at most " + std::to_string(max_directory_bytes) +
           "); set it to a shorter directory path";
  if (!text::valid_utf8(dir)) return "CCTUNE_WORKLOAD=" + shown + " is not valid UTF-8; set it to a plain directory path";
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0)
    return "CCTUNE_WORKLOAD=" + shown + ": " + std::strerror(errno) + "; create the directory before the job starts";
  if (S_ISLNK(st.st_mode)) return "CCTUNE_WORKLOAD=" + shown + " is a symbolic link; give the directory's real path";
  if (!S_ISDIR(st.st_mode)) return "CCTUNE_WORKLOAD=" + shown + " is not a directory; set it to a directory";
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    return "CCTUNE_WORKLOAD=" + shown + " is not writable by this process; choose a writable directory";
  return "";
}

std::string host_for_file_name() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0 || host[0] == '\0') return "unknown-host";
  std::string out;
  for (const char* c = host; *c && out.size() < 64; ++c)
    out.push_back(std::isalnum(static_cast<unsigned char>(*c)) || *c == '-' || *c == '.' || *c == '_' ? *c : '_');
  return out;
}

std::uint64_t interval_ns(std::uint64_t s) { return s * 1000000000ull; }

// Intervals are whole seconds and the follow gap milliseconds: the coarse clock (a few ms
// resolution) is plenty, and cheaper on a path every group takes.
std::uint64_t coarse_now_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC_COARSE, &t);
  return static_cast<std::uint64_t>(t.tv_sec) * 1000000000ull + static_cast<std::uint64_t>(t.tv_nsec);
}

// A whole number from `low` to `high`, or nullopt.
std::optional<std::uint64_t> bounded_number(const char* text, std::uint64_t low, std::uint64_t high) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text, &end, 10);
  if (errno != 0 || *end != '\0' || !std::isdigit(static_cast<unsigned char>(text[0])) || v < low || v > high) return std::nullopt;
  return v;
}

}  // namespace

std::optional<EventMode> parse_event_mode(std::string_view word) {
  if (word == "timing") return EventMode::Timing;
  if (word == "calls") return EventMode::Calls;
  if (word == "off") return EventMode::Off;
  return std::nullopt;
}

EventMasks event_masks_of(EventMode mode, bool api_events, bool polls) {
  if (mode == EventMode::Off) return polls && api_events ? EventMasks{nccl_abi::kProfileGroupApi, nccl_abi::kProfileGroupApi} : EventMasks{};
  constexpr int api = nccl_abi::kProfileGroupApi | nccl_abi::kProfileCollApi | nccl_abi::kProfileP2pApi;
  constexpr int task = nccl_abi::kProfileColl | nccl_abi::kProfileP2p;
  const int timing = mode == EventMode::Timing ? nccl_abi::kProfileKernelCh : 0;
  if (!api_events) return {task, task | timing};
  return {api, api | task | timing};
}

WorkloadSettings read_workload_settings(const char* directory, const char* interval, const char* events, const char* timing_every,
                                        const char* follow_gap_ms, const char* job_steps, const char* step_times) {
  WorkloadSettings s;
  if (!directory || !*directory) return s;
  s.problem = check_directory(directory);
  if (!s.problem.empty()) return s;
  s.directory = directory;
  if (interval && *interval) {
    if (auto v = bounded_number(interval, 0, max_interval_s)) s.interval_s = *v;
    else
      s.note = "CCTUNE_WORKLOAD_INTERVAL=" + text::log_text(interval, 40) + " is not a number of seconds from 0 to " +
               std::to_string(max_interval_s) + "; using " + std::to_string(s.interval_s);
  }
  if (timing_every && *timing_every) {
    if (auto v = bounded_number(timing_every, 1, max_timing_every)) s.timing_every = *v;
    else
      s.note = "CCTUNE_WORKLOAD_TIMING_EVERY=" + text::log_text(timing_every, 40) + " is not a number of calls from 1 to " +
               std::to_string(max_timing_every) + "; using " + std::to_string(s.timing_every);
  }
  if (follow_gap_ms && *follow_gap_ms) {
    if (auto v = bounded_number(follow_gap_ms, 0, max_follow_gap_ms)) s.follow_gap_ms = *v;
    else
      s.note = "CCTUNE_WORKLOAD_FOLLOW_GAP_MS=" + text::log_text(follow_gap_ms, 40) + " is not a number of milliseconds from 0 to " +
               std::to_string(max_follow_gap_ms) + "; using " + std::to_string(s.follow_gap_ms);
  }
  if (step_times && *step_times) {
    if (std::string_view(step_times) == "1" || std::string_view(step_times) == "0") s.step_times = step_times[0] == '1';
    else s.note = "CCTUNE_WORKLOAD_STEP_TIMES=" + text::log_text(step_times, 40) + " is not 0 or 1; steps are not timed";
  }
  if (job_steps && *job_steps) {
    if (auto v = bounded_number(job_steps, 1, max_job_steps)) s.job_steps = *v;
    else
      s.note = "CCTUNE_WORKLOAD_STEPS=" + text::log_text(job_steps, 40) + " is not a number of steps from 1 to " +
               std::to_string(max_job_steps) + "; finding the steps from the calls";
  }
  if (events && *events) {
    if (auto mode = parse_event_mode(events)) s.mode = *mode;
    else s.note = "CCTUNE_WORKLOAD_EVENTS=" + text::log_text(events, 40) + " is not timing, calls or off; using timing";
  }
  return s;
}

WorkloadSettings workload_settings_from_environment() {
  return read_workload_settings(std::getenv("CCTUNE_WORKLOAD"), std::getenv("CCTUNE_WORKLOAD_INTERVAL"), std::getenv("CCTUNE_WORKLOAD_EVENTS"),
                                std::getenv("CCTUNE_WORKLOAD_TIMING_EVERY"), std::getenv("CCTUNE_WORKLOAD_FOLLOW_GAP_MS"),
                                std::getenv("CCTUNE_WORKLOAD_STEPS"), std::getenv("CCTUNE_WORKLOAD_STEP_TIMES"));
}

WorkloadSink::WorkloadSink(WorkloadSettings settings, WorkloadFile::TagSource tags)
    : interval_s_(settings.interval_s),
      timing_every_(settings.timing_every),
      follow_gap_ns_(settings.follow_gap_ms * 1000000ull),
      every_mask_(0),
      followed_mask_(0),
      next_write_ns_(0),
      settings_(std::move(settings)),
      owner_pid_(::getpid()),
      file_(settings_.directory, host_for_file_name(), owner_pid_, tags),
      mode_(settings_.mode) {
  apply_masks();
  source_ = "nccl-profiler:" + host_for_file_name() + ":" + std::to_string(owner_pid_);
  if (settings_.interval_s > 0) next_write_ns_ = host_now_ns() + interval_ns(settings_.interval_s);
}

std::string WorkloadSink::path() {
  std::lock_guard lock(write_mutex_);
  return file_.path();
}

int WorkloadSink::activation_mask() const noexcept {
  return timing_every_ > 1 ? every_mask_.load(std::memory_order_relaxed) : followed_mask_.load(std::memory_order_relaxed);
}

void WorkloadSink::use_api_events(bool yes) {
  if (api_events_known_.exchange(true)) return;  // one NCCL per process: the first init says which
  std::lock_guard lock(mutex_);
  api_events_ = yes;
  apply_masks();
}

void WorkloadSink::set_mode(EventMode mode) {
  std::lock_guard lock(mutex_);
  mode_ = mode;
  apply_masks();
}

void WorkloadSink::apply_masks() {
  if (silenced_) return;  // quiet for good
  const EventMasks m = event_masks_of(mode_, api_events_, settings_.interval_s > 0);
  every_mask_ = m.every_call;
  followed_mask_ = m.followed;
  follow_next_ = false;
  for (CommRecorder* r : live_) r->set_activation_mask(activation_mask());
}

void WorkloadSink::add(CommRecorder* recorder) {
  std::lock_guard lock(mutex_);
  live_.push_back(recorder);
  recorder->set_activation_mask(activation_mask());
  int* none = nullptr;
  nccl_mask_.compare_exchange_strong(none, recorder->activation_mask_pointer());
}

void WorkloadSink::add_group(CommRecorder* recorder, std::uint64_t serial, const ShapeKey* members, std::size_t n, bool over_bound) {
  std::lock_guard lock(mutex_);
  if (std::find(live_.begin(), live_.end(), recorder) == live_.end() || recorder->serial() != serial) return;
  if (over_bound) recorder->count_group_not_recorded();
  else recorder->add_group(members, n);
}

CCTUNE_HOT bool WorkloadSink::following_now() const noexcept {
  const int* nccl = nccl_mask_.load(std::memory_order_relaxed);
  return nccl && (__atomic_load_n(nccl, __ATOMIC_RELAXED) & (nccl_abi::kProfileColl | nccl_abi::kProfileP2p));
}

CCTUNE_HOT void WorkloadSink::sample_next_call(FollowSampler& sampler) noexcept {
  const int every = every_mask_.load(std::memory_order_relaxed);
  const int followed = followed_mask_.load(std::memory_order_relaxed);
  if (timing_every_ <= 1 || every == followed) return;
  const bool follow = sampler.next(timing_every_, follow_gap_ns_, &coarse_now_ns);
  // Written only when it changes: twice per sample, not on every call.
  if (follow_next_.load(std::memory_order_relaxed) == follow) return;
  follow_next_.store(follow, std::memory_order_relaxed);
  int* nccl = nccl_mask_.load(std::memory_order_relaxed);
  if (!nccl) return;
  __atomic_store_n(nccl, follow ? followed : every, __ATOMIC_RELAXED);
  // The mode may have changed, or the plugin gone quiet, since the masks were read: then NCCL
  // gets the current ones.
  if (every_mask_.load(std::memory_order_relaxed) != every || followed_mask_.load(std::memory_order_relaxed) != followed)
    __atomic_store_n(nccl, activation_mask(), __ATOMIC_RELAXED);
}

WorkloadSink::Removed WorkloadSink::remove(CommRecorder* recorder) {
  std::lock_guard lock(mutex_);
  Removed out;
  for (auto it = live_.begin(); it != live_.end(); ++it) {
    if (*it != recorder) continue;
    const std::uint64_t dropped_before = finished_.dropped_communicators();
    finished_.add(recorder->snapshot(settings_.job_steps));
    out.first_dropped = dropped_before == 0 && finished_.dropped_communicators() > 0;
    live_.erase(it);
    out.none_live = live_.empty();
    return out;
  }
  return out;
}

std::string WorkloadSink::dropped_warning() {
  return "cctune profiler: this process destroyed more communicators than the " + std::to_string(FinishedComms::default_max_records) +
         " the workload file keeps; those with the fewest calls are not recorded"
         " (docs/WORKLOAD.md, \"Processes and communicators over a job's life\")";
}

void WorkloadSink::forget_in_child() noexcept {
  silenced_ = true;  // no lock: only the forking thread lives on in the child
  every_mask_ = 0;
  followed_mask_ = 0;
  if (int* nccl = nccl_mask_.load(std::memory_order_relaxed)) __atomic_store_n(nccl, 0, __ATOMIC_RELAXED);
}

void WorkloadSink::apply_control_file() {
  const std::string control = settings_.directory + "/" + control_file_name;
  struct stat st {};
  if (::lstat(control.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;
  std::string word;
  try {
    word = read_file(control, 64);
  } catch (const std::exception&) {
    return;  // unreadable or too long: the mode stays
  }
  while (!word.empty() && std::isspace(static_cast<unsigned char>(word.back()))) word.pop_back();
  const auto mode = parse_event_mode(word);
  if (!mode || *mode == mode_) return;
  mode_ = *mode;
  apply_masks();
}

CCTUNE_HOT void WorkloadSink::tick() {
  if (interval_s_ == 0) return;
  const std::uint64_t now = coarse_now_ns();
  const std::uint64_t due = next_write_ns_.load(std::memory_order_relaxed);
  if (now < due) [[likely]]
    return;
  write_when_due(due, now);
}

CCTUNE_COLD void WorkloadSink::write_when_due(std::uint64_t due, std::uint64_t now) {
  // One thread writes; the others go on at once.
  if (!next_write_ns_.compare_exchange_strong(due, now + interval_ns(settings_.interval_s))) return;
  {
    std::lock_guard lock(mutex_);
    apply_control_file();
  }
  write();
}

void WorkloadSink::silence() noexcept {
  std::lock_guard lock(mutex_);
  silenced_ = true;
  every_mask_ = 0;
  followed_mask_ = 0;
  for (CommRecorder* r : live_) r->set_activation_mask(0);
}

void WorkloadSink::watch_with(const Profile* profile, nccl_abi::Logger log) {
  std::lock_guard lock(mutex_);
  profile_ = profile;
  log_ = log;
}

void WorkloadSink::report(const workload::Communicator& comm) {
  for (const workload::WatchFinding& f : comm.watch) {
    if (!log_ || !warned_.emplace(comm.id, f.collective, f.bytes).second) continue;
    const std::string line = watch_warning(comm.id, f, file_.path());
    log_(nccl_abi::kLogWarn, nccl_abi::kSubsysInit, __FILE__, __LINE__, "%s", text::log_text(line, 1024).c_str());
  }
}

void WorkloadSink::write() {
  if (::getpid() != owner_pid_) return;  // the parent's file is not this process's to replace
  std::lock_guard write_lock(write_mutex_);
  workload::Workload w;
  w.format = "nccl-profiler";
  w.sources = {source_};
  {
    std::lock_guard lock(mutex_);
    std::vector<workload::Communicator> live;
    live.reserve(live_.size());
    for (CommRecorder* r : live_) live.push_back(r->snapshot(settings_.job_steps));
    w.communicators = finished_.with(live);  // sorted by id
    if (profile_)
      for (workload::Communicator& c : w.communicators) {
        c.watch = watch_communicator(c, *profile_);
        report(c);
      }
  }
  if (tuner_report_) w.tuner = tuner_report_();
  file_.write(text::dump_json(workload::to_json(w), 1) + "\n");
}

}  // namespace cctune::tuner
