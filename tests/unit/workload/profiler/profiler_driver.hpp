#pragma once
// Plays NCCL's part towards the profiler half: descriptors laid out as NCCL 2.28 passes them
// (cctune's declarations, whose layout nccl_profiler_abi.hpp pins), events started, states
// recorded and stopped in NCCL's order, including kernel channels that report after their
// collective's host event has stopped. Like NCCL it reads the event mask once as each call
// starts and delivers only the events that mask asks for.
#include <cstdint>

#include "workload/profiler/nccl_profiler_abi.hpp"

namespace cctune::tuner::testing {

struct ProfilerDriver {
  const nccl_abi::ProfilerV5* plugin = nullptr;
  void* context = nullptr;
  int mask = -1;
  // The mask as this thread's current call started (NCCL keeps it in thread-local state: one
  // thread's group may hold calls of several communicators).
  static inline thread_local int call_mask = 0;

  static constexpr int api_events = nccl_abi::kProfileGroupApi | nccl_abi::kProfileCollApi | nccl_abi::kProfileP2pApi;

  bool init(std::uint64_t comm_hash, int nnodes, int nranks, int rank, nccl_abi::Logger log) {
    return plugin->init(&context, comm_hash, &mask, "test-comm", nnodes, nranks, rank, log) == nccl_abi::kSuccess;
  }

  void* start(nccl_abi::ProfilerEventDescrV5& d) {
    void* handle = nullptr;
    plugin->start_event(context, &handle, &d);
    return handle;
  }

  void stop(void* handle) {
    if (handle) plugin->stop_event(handle);
  }

  // v5's API events for one outermost group, as NCCL issues them on the calling thread: the
  // group API event, then one API event per call with the group as its parent. Where the plugin
  // gives the group a handle, NCCL also records its two states and stops it at ncclGroupEnd. A
  // lone call is such a group of one.
  void* group_start(int depth = 2) {
    call_mask = __atomic_load_n(&mask, __ATOMIC_RELAXED);
    if (!(call_mask & api_events)) return nullptr;
    nccl_abi::ProfilerEventDescrV5 d{};
    d.type = nccl_abi::kProfileGroupApi;
    d.group_api.group_depth = depth;
    void* handle = start(d);
    if (handle) plugin->record_event_state(handle, 23, nullptr);  // ncclGroupStart returned
    return handle;
  }

  // The call's API event, stopped as NCCL stops it (at the end of the enqueue); its handle is
  // what NCCL gives the call's task event as parent.
  void* coll_api(void* group, const char* func, std::size_t count, const char* dtype, int root = 0) {
    if (!(call_mask & nccl_abi::kProfileCollApi)) return nullptr;
    nccl_abi::ProfilerEventDescrV5 d{};
    d.type = nccl_abi::kProfileCollApi;
    d.parent = group;
    d.coll_api.func = func;
    d.coll_api.count = count;
    d.coll_api.datatype = dtype;
    d.coll_api.root = root;
    void* handle = start(d);
    stop(handle);
    return handle;
  }

  void* p2p_api(void* group, const char* func, std::size_t count, const char* dtype) {
    if (!(call_mask & nccl_abi::kProfileP2pApi)) return nullptr;
    nccl_abi::ProfilerEventDescrV5 d{};
    d.type = nccl_abi::kProfileP2pApi;
    d.parent = group;
    d.p2p_api.func = func;
    d.p2p_api.count = count;
    d.p2p_api.datatype = dtype;
    void* handle = start(d);
    stop(handle);
    return handle;
  }

  void group_stop(void* group) {
    if (!group) return;
    plugin->record_event_state(group, 24, nullptr);  // ncclGroupEnd started
    plugin->stop_event(group);
  }

  // Task events, as NCCL starts them at launch for the calls its mask follows (NCCL stops them
  // at once, before the kernel has run). AllGather and Broadcast go as bytes (NCCL's view).
  void* task_collective(void* api, const char* func, std::size_t count, const char* dtype, const char* algo, const char* proto,
                        int channels, int root) {
    if (!(call_mask & nccl_abi::kProfileColl)) return nullptr;
    nccl_abi::ProfilerEventDescrV5 d{};
    d.type = nccl_abi::kProfileColl;
    d.parent = api;
    d.coll.func = func;
    d.coll.count = count;
    d.coll.datatype = dtype;
    d.coll.root = root;
    d.coll.algo = algo;
    d.coll.proto = proto;
    d.coll.n_channels = static_cast<std::uint8_t>(channels);
    return start(d);
  }

  void* task_p2p(void* api, const char* func, std::size_t count, const char* dtype, int peer) {
    if (!(call_mask & nccl_abi::kProfileP2p)) return nullptr;
    nccl_abi::ProfilerEventDescrV5 d{};
    d.type = nccl_abi::kProfileP2p;
    d.parent = api;
    d.p2p.func = func;
    d.p2p.count = count;
    d.p2p.datatype = dtype;
    d.p2p.peer = peer;
    d.p2p.n_channels = 2;
    return start(d);
  }

  // Kernel channels of a followed task, on `channels` channels all running [start, start + duration).
  void run_channels(void* task, int channels, std::uint64_t start_ns, std::uint64_t duration_ns) {
    if (!task || !(call_mask & nccl_abi::kProfileKernelCh)) return;
    void* ch[8] = {};
    for (int i = 0; i < channels && i < 8; ++i) {
      nccl_abi::ProfilerEventDescrV5 d{};
      d.type = nccl_abi::kProfileKernelCh;
      d.parent = task;
      d.kernel_ch.channel_id = static_cast<std::uint8_t>(i);
      d.kernel_ch.start_globaltimer_ns = start_ns + 100u * i;
      ch[i] = start(d);
    }
    for (int i = 0; i < channels && i < 8; ++i) {
      if (!ch[i]) continue;
      nccl_abi::ProfilerEventStateArgs args{};
      args.kernel_ch_stop_globaltimer_ns = start_ns + duration_ns - 100u * i;
      plugin->record_event_state(ch[i], nccl_abi::kProfilerKernelChStop, &args);
      plugin->stop_event(ch[i]);
    }
  }

  // One lone collective, every event NCCL issues for it; with a duration, its kernel channels
  // run for that long. True when the call was followed (the plugin took its task event).
  bool collective(const char* func, std::size_t count, const char* dtype, const char* algo, const char* proto, int channels,
                  int root = 0, std::uint64_t start_ns = 0, std::uint64_t duration_ns = 0) {
    void* group = group_start(1);
    void* api = coll_api(group, func, count, dtype, root);
    void* task = task_collective(api, func, count, dtype, algo, proto, channels, root);
    stop(task);
    group_stop(group);
    if (duration_ns) run_channels(task, channels, start_ns, duration_ns);
    return task != nullptr;
  }

  bool timed_collective(const char* func, std::size_t count, const char* dtype, std::uint64_t start_ns, std::uint64_t duration_ns,
                        int channels = 2) {
    return collective(func, count, dtype, "Ring", "Simple", channels, 0, start_ns, duration_ns);
  }

  bool p2p(const char* func, std::size_t count, const char* dtype, int peer) {
    void* group = group_start(1);
    void* api = p2p_api(group, func, count, dtype);
    void* task = task_p2p(api, func, count, dtype, peer);
    stop(task);
    group_stop(group);
    return task != nullptr;
  }

  bool finalize() { return plugin->finalize(context) == nccl_abi::kSuccess; }
};

}  // namespace cctune::tuner::testing
