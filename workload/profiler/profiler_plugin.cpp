// cctune's NCCL profiler plugin (the profiler half of libnccl-tuner-cctune.so): the C entry
// points NCCL calls with NCCL_PROFILER_PLUGIN pointing at this library. It records the job's
// calls per communicator and shape (CommRecorder) and writes them where CCTUNE_WORKLOAD says
// (WorkloadSink). Like the tuner half it must never take a job down: every entry point
// returns ncclSuccess and catches everything; on the first failure it warns once through
// NCCL's logger, switches every communicator's events off and records nothing more.
#include <pthread.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <string>
#include <string_view>
#include <type_traits>

#include "core/text.hpp"
#include "tuner/plugin/production_profile.hpp"
#include "workload/nccl_names.hpp"
#include "workload/profiler/comm_recorder.hpp"
#include "workload/profiler/hot_path.hpp"
#include "workload/profiler/nccl_profiler_abi.hpp"
#include "workload/profiler/thread_state.hpp"
#include "workload/profiler/tuner_report.hpp"
#include "workload/profiler/workload_sink.hpp"

namespace cctune::tuner {
namespace {

using nccl_abi::Logger;
using nccl_abi::Result;

constexpr std::size_t max_name_bytes = 64;  // NCCL's names are short; a longer one is not one of them

// The process's profiler state. Constant-initialised and trivially destructible, so it is
// there before any call and never destroyed (NCCL's proxy threads may still call in while the
// process exits), and reaching it costs no guard check on the per-call path.
struct ProfilerProcess {
  std::once_flag once;
  WorkloadSink* sink = nullptr;  // nullptr: CCTUNE_WORKLOAD unset or unusable
  std::atomic<bool> stopped{false};
  std::atomic<bool> warned{false};
  std::atomic<Logger> log{nullptr};
};
static_assert(std::is_trivially_destructible_v<ProfilerProcess>);

constinit ProfilerProcess the_process;

ProfilerProcess& process() noexcept { return the_process; }

void log_line(Logger log, int level, const std::string& message) noexcept {
  if (!log) return;
  try {
    log(level, nccl_abi::kSubsysInit, __FILE__, __LINE__, "%s", text::log_text(message, 1024).c_str());
  } catch (...) {
  }
}

void warn_once(const std::string& message) noexcept {
  if (!process().warned.exchange(true)) log_line(process().log.load(), nccl_abi::kLogWarn, message);
}

// The contract's last resort: say so once, then record nothing more in this process.
void give_up(const char* where, const std::exception* e) noexcept {
  process().stopped = true;
  if (WorkloadSink* s = process().sink) s->silence();
  try {
    warn_once(std::string("cctune profiler: ") + where + " failed" + (e ? std::string(": ") + e->what() : std::string()) +
              "; the profiler half records nothing more in this process (the job is not affected)");
  } catch (...) {
  }
}

// pthread_atfork's child handler: a forked child's stale copy must not overwrite the parent's file at exit, nor
// block on a lock a parent thread held at the fork. It records nothing, takes no lock (one thread: plain stores).
void forget_in_child() noexcept {
  ProfilerProcess& p = process();
  p.stopped = true;
  if (p.sink) p.sink->forget_in_child();
  p.sink = nullptr;  // finalize, the exit hook and cctune_profiler_events see none
  ThreadState::forget_after_fork();
}

WorkloadSink* sink(Logger log) {
  ProfilerProcess& p = process();
  std::call_once(p.once, [&] {
    const WorkloadSettings s = workload_settings_from_environment();
    if (!s.problem.empty()) warn_once("cctune profiler: " + s.problem + ". The job runs on; nothing is recorded.");
    if (s.directory.empty()) return;
    if (!s.note.empty()) log_line(log, nccl_abi::kLogWarn, "cctune profiler: " + s.note);
    p.sink = new WorkloadSink(s);
    (void)pthread_atfork(nullptr, nullptr, &forget_in_child);  // fails only without memory; write() checks the pid too
    // The tuner half (the same library: one process-wide copy): the watch's reference, its record in every write.
    const ProductionProfile& production = production_profile();
    if (production.profile) p.sink->watch_with(&*production.profile, log);
    p.sink->tuner_report_with(&tuner_report);
    log_line(log, nccl_abi::kLogInfo, "cctune profiler: recording this process's calls in " + p.sink->path());
  });
  return p.sink;
}

Result init_common(void** context, int* mask, std::uint64_t comm_hash, int n_nodes, int n_ranks, int rank, Logger log,
                   bool api_events) noexcept {
  // NCCL 2.28 keeps one mask for all communicators: it is written once, with its final value,
  // so that other communicators' events are never switched off while this one starts.
  int final_mask = 0;
  if (context) *context = nullptr;
  if (context && !process().stopped) {
    try {
      Logger none = nullptr;
      process().log.compare_exchange_strong(none, log);
      WorkloadSink* s = sink(log);
      if (s && n_ranks > 0 && rank >= 0 && rank < n_ranks) {
        s->use_api_events(api_events);
        auto* recorder = new CommRecorder(comm_hash, n_ranks, n_nodes > 0 ? n_nodes : 0, rank, mask);
        recorder->time_steps(s->settings().step_times);
        s->add(recorder);  // also sets *mask
        *context = recorder;
        final_mask = s->activation_mask();
      }
    } catch (const std::exception& e) {
      give_up("init", &e);
    } catch (...) {
      give_up("init", nullptr);
    }
  }
  if (mask) __atomic_store_n(mask, final_mask, __ATOMIC_RELAXED);
  return nccl_abi::kSuccess;
}

std::string_view name_of(const char* s) noexcept { return s ? std::string_view(s, strnlen(s, max_name_bytes)) : std::string_view(); }

int algo_index(const char* s) noexcept {
  auto a = workload::algorithm_from_nccl_name(name_of(s));
  return a ? static_cast<int>(*a) : -1;
}

int proto_index(const char* s) noexcept {
  auto p = parse_protocol(name_of(s));
  return p ? static_cast<int>(*p) : -1;
}

// A collective or p2p descriptor as a call shape; false for names this version does not know.
template <typename Coll>
bool coll_info(const Coll& c, CallInfo& out) {
  const auto kind = workload::nccl_func_kind(name_of(c.func));
  const auto dtype = workload::dtype_from_nccl_name(name_of(c.datatype));
  if (!kind || !dtype || kind->kind != workload::CallKind::Collective) return false;
  out.key = ShapeKey{kind->kind, kind->collective, *dtype, is_rooted(kind->collective) ? c.root : -1, c.count};
  out.algo = algo_index(c.algo);
  out.proto = proto_index(c.proto);
  out.channels = c.n_channels;
  return true;
}

template <typename P2p>
bool p2p_info(const P2p& c, CallInfo& out) {
  const auto kind = workload::nccl_func_kind(name_of(c.func));
  const auto dtype = workload::dtype_from_nccl_name(name_of(c.datatype));
  if (!kind || !dtype || kind->kind == workload::CallKind::Collective) return false;
  out.key = ShapeKey{kind->kind, Collective::SendRecv, *dtype, -1, c.count};
  out.channels = c.n_channels;
  return true;
}

// A call as its caller made it (v5's API events): the collective, data type and count passed
// to NCCL. Shapes and groups keep this view (as NCCL's COLL log prints it); task events show
// NCCL's own (AllGather and Broadcast as int8 bytes), which only v4 shapes keep.
bool api_key(const char* func, const char* datatype, std::size_t count, int root, ShapeKey& out) noexcept {
  const auto kind = workload::nccl_func_kind(name_of(func));
  const auto dtype = workload::dtype_from_nccl_name(name_of(datatype));
  if (!kind || !dtype) return false;
  const bool rooted = kind->kind == workload::CallKind::Collective && is_rooted(kind->collective);
  out = ShapeKey{kind->kind, kind->collective, *dtype, rooted ? root : -1, count};
  return true;
}

// Both paths' end: a followed call's handle to NCCL, and the call into the thread's open group.
void join_group(ThreadState& t, CommRecorder* recorder, void** handle, void* call_handle, const ShapeKey& key) noexcept {
  if (t.group.followed()) *handle = call_handle;
  t.group.add(recorder, key);
}

// A call the thread's memo does not hold (the first of its shape, or one pushed out): its
// names parsed, counted in the recorder's table, remembered, added to the thread's group. Names
// this version does not know are not counted.
CCTUNE_COLD void first_call(ThreadState& t, CommRecorder* recorder, void** handle, const char* func, const char* datatype,
                            std::size_t count, int root) {
  ShapeKey key;
  if (!api_key(func, datatype, count, root, key)) return;
  MemoCall call;
  call.recorder = recorder;
  call.serial = recorder->serial();
  call.func = func;
  call.dtype = datatype;
  call.count = count;
  call.root = root;
  call.set_key(key);
  call.handle = recorder->count_call(key, call.stats);
  if (call.handle) t.memo.remember(call);
  join_group(t, recorder, handle, call.handle, key);
}

// One call's API event: counted, timed (the step cadence) and added to the thread's open group.
// Only a followed call gets a handle (naming its shape, for its task event); the others get
// none, so NCCL does not stop them. Repeated calls come from the memo.
CCTUNE_HOT void api_call(ThreadState& t, CommRecorder* recorder, void** handle, const char* func, const char* datatype,
                         std::size_t count, int root) {
  const MemoCall* m = t.memo.find(recorder, recorder->serial(), func, datatype, count, root);
  if (!m) [[unlikely]]
    return first_call(t, recorder, handle, func, datatype, count, root);
  m->stats->count_one(), recorder->time_repeated_call(m->handle);
  join_group(t, recorder, handle, m->handle, m->key());
}

// v5's API events, on the thread that calls NCCL. A group API event opens this thread's next
// group (it gets no handle: GroupCollector says why); each call made in it joins it. Periodic
// writes happen here, on the job's launching thread, never on NCCL's proxy thread, which must
// not wait on a disk.
CCTUNE_HOT bool api_event(CommRecorder* recorder, void** handle, const nccl_abi::ProfilerEventDescrV5& d) {
  const auto type = static_cast<std::uint64_t>(d.type);
  if (type != nccl_abi::kProfileGroupApi && type != nccl_abi::kProfileCollApi && type != nccl_abi::kProfileP2pApi)
    return false;  // a task or kernel-channel event: no thread state for those
  ThreadState* t = ThreadState::of_caller(recorder->last_caller());
  if (!t) [[unlikely]]
    return true;  // the thread has ended: nothing more is recorded from it
  if (type == nccl_abi::kProfileGroupApi) {
    WorkloadSink* s = process().sink;
    if (!s) return true;
    t->group.start(s, s->following_now());  // NCCL read its mask just before
    s->sample_next_call(t->sampler);
    s->tick();
  } else if (type == nccl_abi::kProfileCollApi) {
    api_call(*t, recorder, handle, d.coll_api.func, d.coll_api.datatype, d.coll_api.count, d.coll_api.root);
  } else {
    api_call(*t, recorder, handle, d.p2p_api.func, d.p2p_api.datatype, d.p2p_api.count, -1);
  }
  return true;
}

// A task event (Coll, P2p). Where v5's API events counted the call, it is one call NCCL was
// asked to follow: what NCCL applied goes to the shape its API event named. Under v4 it counts
// the call too.
template <typename Descr>
ProfEvent* task_event(CommRecorder* recorder, const Descr& d) {
  constexpr bool v5 = std::is_same_v<Descr, nccl_abi::ProfilerEventDescrV5>;
  const auto type = static_cast<std::uint64_t>(d.type);
  if (type != nccl_abi::kProfileColl && type != nccl_abi::kProfileP2p) return nullptr;
  const bool coll = type == nccl_abi::kProfileColl;
  if constexpr (v5) {
    return coll ? recorder->follow_call(d.parent, algo_index(d.coll.algo), proto_index(d.coll.proto), d.coll.n_channels)
                : recorder->follow_call(d.parent, -1, -1, d.p2p.n_channels);
  } else {
    CallInfo info;
    if (coll ? !coll_info(d.coll, info) : !p2p_info(d.p2p, info)) return nullptr;
    ThreadState* t = ThreadState::of_this_thread();
    if (WorkloadSink* s = process().sink; s && t) s->sample_next_call(t->sampler);
    return recorder->start_call(info);
  }
}

template <typename Descr>
CCTUNE_COLD void other_event(CommRecorder* recorder, void** handle, Descr* descr) noexcept {
  try {
    if (static_cast<std::uint64_t>(descr->type) == nccl_abi::kProfileKernelCh)
      *handle = recorder->start_kernel_channel(static_cast<ProfEvent*>(descr->parent), descr->kernel_ch.start_globaltimer_ns);
    else *handle = task_event(recorder, *descr);
  } catch (const std::exception& e) {
    give_up("startEvent", &e);
  } catch (...) {
    give_up("startEvent", nullptr);
  }
}

// Every call's API events take the first branch, which is all the hot path holds; task and
// kernel-channel events (followed calls, v4) go the cold way.
template <typename Descr>
CCTUNE_HOT Result start_event(void* context, void** handle, Descr* descr) noexcept {
  if (!handle) return nccl_abi::kSuccess;
  *handle = nullptr;
  if (!context || !descr || process().stopped.load(std::memory_order_relaxed)) return nccl_abi::kSuccess;
  auto* recorder = static_cast<CommRecorder*>(context);
  if constexpr (std::is_same_v<Descr, nccl_abi::ProfilerEventDescrV5>) {
    try {
      if (api_event(recorder, handle, *descr)) [[likely]]
        return nccl_abi::kSuccess;
    } catch (const std::exception& e) {
      give_up("startEvent", &e);
      return nccl_abi::kSuccess;
    } catch (...) {
      give_up("startEvent", nullptr);
      return nccl_abi::kSuccess;
    }
  }
  other_event(recorder, handle, descr);
  return nccl_abi::kSuccess;
}

Result stop_event(void* handle) noexcept {
  if (!handle || process().stopped || CommRecorder::is_call_handle(handle)) return nccl_abi::kSuccess;
  try {
    // A call's stop comes on the launching thread (v4 writes periodically here; v5 as groups
    // start); a kernel channel's on NCCL's proxy thread, which must not wait on a disk.
    auto* e = static_cast<ProfEvent*>(handle);
    const bool call = e->kind == ProfEvent::Kind::Call;
    e->owner->stop(e);
    if (call && process().sink) process().sink->tick();
  } catch (const std::exception& e) {
    give_up("stopEvent", &e);
  } catch (...) {
    give_up("stopEvent", nullptr);
  }
  return nccl_abi::kSuccess;
}

Result record_event_state(void* handle, nccl_abi::ProfilerEventState state, nccl_abi::ProfilerEventStateArgs* args) noexcept {
  if (!handle || process().stopped || state != nccl_abi::kProfilerKernelChStop) return nccl_abi::kSuccess;
  try {
    auto* e = static_cast<ProfEvent*>(handle);
    e->owner->kernel_channel_stopped(e, args ? args->kernel_ch_stop_globaltimer_ns : 0);
  } catch (...) {
    give_up("recordEventState", nullptr);
  }
  return nccl_abi::kSuccess;
}

Result finalize(void* context) noexcept {
  if (!context) return nccl_abi::kSuccess;
  auto* recorder = static_cast<CommRecorder*>(context);
  try {
    if (WorkloadSink* s = process().sink) {
      if (ThreadState* t = ThreadState::of_this_thread()) t->group.close();  // this thread's last group may hold its calls
      // Only the last live communicator's destroy writes (the others wait for the interval or
      // exit): a job that splits and destroys communicators often would rewrite its file each time.
      const WorkloadSink::Removed removed = s->remove(recorder);
      if (removed.first_dropped) log_line(process().log.load(), nccl_abi::kLogWarn, WorkloadSink::dropped_warning());
      if (removed.none_live && !process().stopped) s->write();
    }
  } catch (const std::exception& e) {
    give_up("writing the workload file", &e);
  } catch (...) {
    give_up("finalize", nullptr);
  }
  delete recorder;
  return nccl_abi::kSuccess;
}

Result init_v5(void** context, std::uint64_t comm_id, int* mask, const char* /*comm_name*/, int n_nodes, int n_ranks, int rank,
               Logger log) noexcept {
  return init_common(context, mask, comm_id, n_nodes, n_ranks, rank, log, true);
}

Result init_v4(void** context, int* mask, const char* /*comm_name*/, std::uint64_t comm_hash, int n_nodes, int n_ranks, int rank,
               Logger log) noexcept {
  return init_common(context, mask, comm_hash, n_nodes, n_ranks, rank, log, false);
}

// Communicators a job never destroys are written at exit (or when the library is unloaded).
struct WriteAtExit {
  ~WriteAtExit() {
    WorkloadSink* s = process().sink;
    if (!s || process().stopped) return;
    try {
      s->write();
    } catch (...) {
    }
  }
} write_at_exit;

}  // namespace
}  // namespace cctune::tuner

extern "C" {
// Switches recording from inside the job (the control file's words: "timing", "calls", "off"),
// for example off for warm-up steps. NCCL reads its event mask as each call starts, so the
// switch applies from the next call. Returns 0 when switched, 1 when this process records
// nothing (CCTUNE_WORKLOAD unset or unusable, or the plugin gave up), -1 for an unknown word.
int cctune_profiler_events(const char* mode) noexcept {
  using namespace cctune::tuner;
  const auto parsed = mode ? parse_event_mode(name_of(mode)) : std::nullopt;
  if (!parsed) return -1;
  WorkloadSink* s = process().sink;
  if (!s || process().stopped) return 1;
  try {
    s->set_mode(*parsed);
  } catch (...) {
    give_up("cctune_profiler_events", nullptr);
    return 1;
  }
  return 0;
}

const cctune::nccl_abi::ProfilerV5 ncclProfiler_v5 = {
    "cctune", cctune::tuner::init_v5, cctune::tuner::start_event<cctune::nccl_abi::ProfilerEventDescrV5>,
    cctune::tuner::stop_event, cctune::tuner::record_event_state, cctune::tuner::finalize};
const cctune::nccl_abi::ProfilerV4 ncclProfiler_v4 = {
    "cctune", cctune::tuner::init_v4, cctune::tuner::start_event<cctune::nccl_abi::ProfilerEventDescrV4>,
    cctune::tuner::stop_event, cctune::tuner::record_event_state, cctune::tuner::finalize};
}
