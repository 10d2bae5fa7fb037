#pragma once
// cctune's own declarations of NCCL's profiler plugin interface, versions 5 (NCCL 2.27, 2.28:
// looked up first) and 4 (NCCL 2.23-2.26). Only the layouts must match NCCL's profiler_v5.h /
// profiler_v4.h and nccl_profiler.h; the names are ours. The plugin only reads descriptors,
// so members it never touches are declared for their size and alignment alone.
#include <sys/types.h>

#include <cstddef>
#include <cstdint>

#include "tuner/plugin/nccl_tuner_abi.hpp"

namespace cctune::nccl_abi {

// Event type bits (the descriptor's type, and the activation mask NCCL reads at each event).
inline constexpr int kProfileGroup = 1 << 0;
inline constexpr int kProfileColl = 1 << 1;
inline constexpr int kProfileP2p = 1 << 2;
inline constexpr int kProfileKernelCh = 1 << 6;
// v5's API-level events: one group per outermost ncclGroupStart/End (a lone call opens and
// closes one too), and one event per collective or p2p call made inside it, on the calling
// thread, the group's handle as their parent.
inline constexpr int kProfileGroupApi = 1 << 8;
inline constexpr int kProfileCollApi = 1 << 9;
inline constexpr int kProfileP2pApi = 1 << 10;

// ncclProfilerEventState_t value NCCL records when a kernel channel's work has ended on the
// GPU; its argument carries the stop globaltimer.
inline constexpr int kProfilerKernelChStop = 22;
using ProfilerEventState = int;  // a C enum

// The member of the descriptor union for a collective, as v5 lays it out; v4 lacks the
// trailing parent_group.
struct ProfCollV5 {
  std::uint64_t seq_number;
  const char* func;
  const void* send_buff;
  void* recv_buff;
  std::size_t count;
  int root;
  const char* datatype;
  std::uint8_t n_channels;
  std::uint8_t n_warps;
  const char* algo;
  const char* proto;
  void* parent_group;
};

struct ProfP2pV5 {
  const char* func;
  void* buff;
  const char* datatype;
  std::size_t count;
  int peer;
  std::uint8_t n_channels;
  void* parent_group;
};

struct ProfKernelCh {
  std::uint8_t channel_id;
  std::uint64_t start_globaltimer_ns;  // GPU globaltimer when the channel started
};

// The API events' members: what the caller passed to NCCL (its collective, data type and
// count), before NCCL turns it into tasks.
struct ProfGroupApi {
  bool graph_captured;
  int group_depth;
};

struct ProfCollApi {
  const char* func;
  std::size_t count;
  const char* datatype;
  int root;
  void* stream;
  bool graph_captured;
};

struct ProfP2pApi {
  const char* func;
  std::size_t count;
  const char* datatype;
  void* stream;
  bool graph_captured;
};

// The largest member of v5's union is the collective one; the others the plugin does not read
// (kernel launch, proxy, net plugin) are smaller.
struct ProfilerEventDescrV5 {
  std::uint64_t type;
  void* parent;  // the parent event's handle as this plugin returned it (a kernel channel's: its collective or p2p)
  int rank;
  union {
    ProfGroupApi group_api;
    ProfCollApi coll_api;
    ProfP2pApi p2p_api;
    ProfCollV5 coll;
    ProfP2pV5 p2p;
    ProfKernelCh kernel_ch;
    unsigned char other_members[sizeof(ProfCollV5)];
  };
};

struct ProfCollV4 {
  std::uint64_t seq_number;
  const char* func;
  const void* send_buff;
  void* recv_buff;
  std::size_t count;
  int root;
  const char* datatype;
  std::uint8_t n_channels;
  std::uint8_t n_warps;
  const char* algo;
  const char* proto;
};

struct ProfP2pV4 {
  const char* func;
  void* buff;
  const char* datatype;
  std::size_t count;
  int peer;
  std::uint8_t n_channels;
};

struct ProfilerEventDescrV4 {
  std::uint8_t type;  // v4: one byte
  void* parent;
  int rank;
  union {
    ProfCollV4 coll;
    ProfP2pV4 p2p;
    ProfKernelCh kernel_ch;
    unsigned char other_members[sizeof(ProfCollV4)];
  };
};

// The state argument union (same leading layout in v4 and v5): for KernelChStop, the stop
// globaltimer. Sized to the largest member of either version.
union ProfilerEventStateArgs {
  std::uint64_t kernel_ch_stop_globaltimer_ns;
  std::size_t proxy_step_trans_size;
  int proxy_ctrl_appended_ops;
  void* net_plugin_data;
};

struct ProfilerV5 {
  const char* name;
  Result (*init)(void** context, std::uint64_t comm_id, int* activation_mask, const char* comm_name, int n_nodes,
                 int n_ranks, int rank, Logger log);
  Result (*start_event)(void* context, void** handle, ProfilerEventDescrV5* descr);
  Result (*stop_event)(void* handle);
  Result (*record_event_state)(void* handle, ProfilerEventState state, ProfilerEventStateArgs* args);
  Result (*finalize)(void* context);
};

struct ProfilerV4 {
  const char* name;
  Result (*init)(void** context, int* activation_mask, const char* comm_name, std::uint64_t comm_hash, int n_nodes,
                 int n_ranks, int rank, Logger log);
  Result (*start_event)(void* context, void** handle, ProfilerEventDescrV4* descr);
  Result (*stop_event)(void* handle);
  Result (*record_event_state)(void* handle, ProfilerEventState state, ProfilerEventStateArgs* args);
  Result (*finalize)(void* context);
};

// Layout facts of NCCL's headers on LP64, checked where the declarations are.
static_assert(offsetof(ProfilerEventDescrV5, coll) == 24 && offsetof(ProfilerEventDescrV4, coll) == 24);
static_assert(offsetof(ProfCollV5, count) == 32 && offsetof(ProfCollV5, datatype) == 48 &&
              offsetof(ProfCollV5, n_channels) == 56 && offsetof(ProfCollV5, algo) == 64 &&
              offsetof(ProfCollV5, proto) == 72 && sizeof(ProfCollV5) == 88);
static_assert(offsetof(ProfP2pV5, count) == 24 && offsetof(ProfP2pV5, peer) == 32 && sizeof(ProfP2pV5) == 48);
static_assert(offsetof(ProfKernelCh, start_globaltimer_ns) == 8);
static_assert(offsetof(ProfGroupApi, group_depth) == 4 && offsetof(ProfCollApi, count) == 8 && offsetof(ProfCollApi, datatype) == 16 &&
              offsetof(ProfCollApi, root) == 24 && offsetof(ProfCollApi, graph_captured) == 40 && sizeof(ProfCollApi) == 48 &&
              offsetof(ProfP2pApi, stream) == 24 && sizeof(ProfP2pApi) == 40);
static_assert(sizeof(ProfilerEventDescrV5) == 112 && sizeof(ProfilerEventDescrV4) == 104);
static_assert(sizeof(ProfilerEventStateArgs) == 8);

}  // namespace cctune::nccl_abi

extern "C" {
CCTUNE_TUNER_EXPORT extern const cctune::nccl_abi::ProfilerV5 ncclProfiler_v5;
CCTUNE_TUNER_EXPORT extern const cctune::nccl_abi::ProfilerV4 ncclProfiler_v4;
// Not NCCL's: the profiler half's switch for the job itself (docs/WORKLOAD.md).
CCTUNE_TUNER_EXPORT int cctune_profiler_events(const char* mode) noexcept;
}
