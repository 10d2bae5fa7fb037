#pragma once
// Plays NCCL's part towards the profiler half: descriptors laid out as NCCL 2.28 passes them
// (cctune's declarations, whose layout nccl_profiler_abi.hpp pins), events started, states
// recorded and stopped in NCCL's order, including kernel channels that report after their
// collective's host event has stopped.
#include <cstdint>

#include "tuner/plugin/nccl_profiler_abi.hpp"

namespace cctune::tuner::testing {

struct ProfilerDriver {
  const nccl_abi::ProfilerV5* plugin = nullptr;
  void* context = nullptr;
  int mask = -1;

  bool init(std::uint64_t comm_hash, int nnodes, int nranks, int rank, nccl_abi::Logger log) {
    return plugin->init(&context, comm_hash, &mask, "test-comm", nnodes, nranks, rank, log) == nccl_abi::kSuccess;
  }

  void* collective(const char* func, std::size_t count, const char* dtype, const char* algo, const char* proto,
                   int channels, int root = 0) {
    nccl_abi::ProfilerEventDescrV5 d{};
    d.type = nccl_abi::kProfileColl;
    d.rank = 0;
    d.coll.func = func;
    d.coll.count = count;
    d.coll.datatype = dtype;
    d.coll.root = root;
    d.coll.algo = algo;
    d.coll.proto = proto;
    d.coll.n_channels = static_cast<std::uint8_t>(channels);
    void* handle = nullptr;
    plugin->start_event(context, &handle, &d);
    return handle;
  }

  void* p2p(const char* func, std::size_t count, const char* dtype, int peer) {
    nccl_abi::ProfilerEventDescrV5 d{};
    d.type = nccl_abi::kProfileP2p;
    d.p2p.func = func;
    d.p2p.count = count;
    d.p2p.datatype = dtype;
    d.p2p.peer = peer;
    d.p2p.n_channels = 2;
    void* handle = nullptr;
    plugin->start_event(context, &handle, &d);
    return handle;
  }

  void* channel_start(void* parent, std::uint64_t start_ns, int channel = 0) {
    nccl_abi::ProfilerEventDescrV5 d{};
    d.type = nccl_abi::kProfileKernelCh;
    d.parent = parent;
    d.kernel_ch.channel_id = static_cast<std::uint8_t>(channel);
    d.kernel_ch.start_globaltimer_ns = start_ns;
    void* handle = nullptr;
    plugin->start_event(context, &handle, &d);
    return handle;
  }

  void channel_stop(void* channel, std::uint64_t stop_ns) {
    nccl_abi::ProfilerEventStateArgs args{};
    args.kernel_ch_stop_globaltimer_ns = stop_ns;
    plugin->record_event_state(channel, nccl_abi::kProfilerKernelChStop, &args);
    plugin->stop_event(channel);
  }

  void stop(void* handle) { plugin->stop_event(handle); }

  // v5's API events for one outermost group, as NCCL issues them on the calling thread: the
  // group API event, its two state records, then one API event per call with the group as its
  // parent; NCCL stops the group at ncclGroupEnd. A lone call is such a group of one.
  void* group_start(int depth = 2) {
    nccl_abi::ProfilerEventDescrV5 d{};
    d.type = nccl_abi::kProfileGroupApi;
    d.group_api.group_depth = depth;
    void* handle = nullptr;
    plugin->start_event(context, &handle, &d);
    if (handle) plugin->record_event_state(handle, 23, nullptr);  // ncclGroupStart returned
    return handle;
  }

  void coll_api(void* group, const char* func, std::size_t count, const char* dtype, int root = 0) {
    nccl_abi::ProfilerEventDescrV5 d{};
    d.type = nccl_abi::kProfileCollApi;
    d.parent = group;
    d.coll_api.func = func;
    d.coll_api.count = count;
    d.coll_api.datatype = dtype;
    d.coll_api.root = root;
    void* handle = nullptr;
    plugin->start_event(context, &handle, &d);
    if (handle) plugin->stop_event(handle);
  }

  void p2p_api(void* group, const char* func, std::size_t count, const char* dtype) {
    nccl_abi::ProfilerEventDescrV5 d{};
    d.type = nccl_abi::kProfileP2pApi;
    d.parent = group;
    d.p2p_api.func = func;
    d.p2p_api.count = count;
    d.p2p_api.datatype = dtype;
    void* handle = nullptr;
    plugin->start_event(context, &handle, &d);
    if (handle) plugin->stop_event(handle);
  }

  void group_stop(void* group) {
    if (!group) return;
    plugin->record_event_state(group, 24, nullptr);  // ncclGroupEnd started
    plugin->stop_event(group);
  }

  // One collective timed on `channels` channels, all running [start, start + duration).
  void timed_collective(const char* func, std::size_t count, const char* dtype, std::uint64_t start_ns,
                        std::uint64_t duration_ns, int channels = 2) {
    void* c = collective(func, count, dtype, "Ring", "Simple", channels);
    stop(c);  // NCCL stops the host event at enqueue, before the kernel has run
    void* ch[8] = {};
    for (int i = 0; i < channels && i < 8; ++i) ch[i] = channel_start(c, start_ns + 100u * i, i);
    for (int i = 0; i < channels && i < 8; ++i) channel_stop(ch[i], start_ns + duration_ns - 100u * i);
  }

  bool finalize() { return plugin->finalize(context) == nccl_abi::kSuccess; }
};

}  // namespace cctune::tuner::testing
