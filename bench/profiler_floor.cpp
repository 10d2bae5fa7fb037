// NCCL's own share of the profiler half's cost, for bench/profiler_overhead.sh (FLOOR=1): a
// profiler plugin that asks NCCL for exactly the events the profiler half asks for on a call it
// does not follow (the group, collective and p2p API events) and does nothing with them. The
// overhead bench times it against no events the same way it times the real plugin, so the
// difference between the two runs is the profiler half's own code on the real launch path, and
// this run alone is what NCCL spends building and delivering the events (its descriptor fills,
// its thread-local API state, the indirect calls). It exports the plugin's switch
// (cctune_profiler_events: "off" asks for nothing, any other known word for the API events), so
// the bench drives both libraries alike. Not installed: a measuring instrument only.
#include <cstdint>
#include <cstring>

#include "workload/profiler/nccl_profiler_abi.hpp"

namespace {

namespace abi = cctune::nccl_abi;

constexpr int api_events = abi::kProfileGroupApi | abi::kProfileCollApi | abi::kProfileP2pApi;

int* nccl_mask = nullptr;  // NCCL keeps one mask for every communicator of the process
int context_token;         // NCCL wants a non-null context to send events

abi::Result init(void** context, std::uint64_t, int* mask, const char*, int, int, int, abi::Logger) noexcept {
  *context = &context_token;
  __atomic_store_n(&nccl_mask, mask, __ATOMIC_RELAXED);
  __atomic_store_n(mask, 0, __ATOMIC_RELAXED);  // off until the bench switches it on
  return abi::kSuccess;
}

abi::Result start_event(void*, void** handle, abi::ProfilerEventDescrV5*) noexcept {
  if (handle) *handle = nullptr;  // no handle: NCCL sends no stop or state record, as for the plugin's unfollowed calls
  return abi::kSuccess;
}

abi::Result stop_event(void*) noexcept { return abi::kSuccess; }
abi::Result record_event_state(void*, abi::ProfilerEventState, abi::ProfilerEventStateArgs*) noexcept { return abi::kSuccess; }
abi::Result finalize(void*) noexcept { return abi::kSuccess; }

}  // namespace

extern "C" {
__attribute__((visibility("default"))) int cctune_profiler_events(const char* mode) noexcept {
  if (!mode) return -1;
  const bool off = std::strcmp(mode, "off") == 0;
  if (!off && std::strcmp(mode, "timing") != 0 && std::strcmp(mode, "calls") != 0) return -1;
  int* mask = __atomic_load_n(&nccl_mask, __ATOMIC_RELAXED);
  if (!mask) return 1;  // no communicator yet
  __atomic_store_n(mask, off ? 0 : api_events, __ATOMIC_RELAXED);
  return 0;
}

// extern: a const object at namespace scope would otherwise be internal and never found by dlsym.
__attribute__((visibility("default"))) extern const abi::ProfilerV5 ncclProfiler_v5;
const abi::ProfilerV5 ncclProfiler_v5 = {"cctune-floor", init, start_event, stop_event, record_event_state, finalize};
}
