#pragma once
// The in-process control of cctune's tuner plugin during a sweep. The NCCL worker and the
// plugin live in the same process (the cctune executable exports ncclTunerPlugin_v5 and
// runs workers with NCCL_TUNER_PLUGIN=STATIC_PLUGIN); the worker says here what the next
// collective calls should use, and reads back what happened.
//
// Why a process-wide object: NCCL calls getCollInfo(context, ...) with the context the
// plugin itself created in init(); nothing the caller of ncclAllReduce passes reaches the
// plugin. The only channel between the worker and the plugin is process state, so there is
// exactly one SweepControl, reached through instance(). It is off unless a worker turns it
// on, so in every other process (and in libnccl-tuner-cctune.so) it costs one atomic load.
//
// Every rank's worker must make the same set_* calls in the same order: NCCL requires all
// ranks of a communicator to run the same algorithm, protocol and channel count.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

#include "core/collective.hpp"
#include "tuner/profile/algo_proto.hpp"

namespace cctune::tuner {

enum class SweepMode { Off, Observe, Forced };

struct ForcedChoice {
  Algorithm algorithm = Algorithm::Ring;
  Protocol protocol = Protocol::Simple;
  int channels = 0;  // 0: NCCL's own count. More than the communicator has needs minCTAs/maxCTAs at init.
};

// NCCL's own pick for the last collective call: the cheapest supported cost-table entry
// before the plugin changed anything.
struct Observation {
  int nccl_func = -1;                    // ncclFunc_t of the call
  std::optional<Collective> collective;  // when it is one of the five tunable collectives
  std::uint64_t n_bytes = 0;             // NCCL's nBytes: max(send, recv) bytes per rank
  Algorithm algorithm = Algorithm::Ring;
  Protocol protocol = Protocol::Simple;
  std::uint64_t calls = 0;  // calls observed since the last set_*()
  bool consistent = true;   // every one of those calls had the same pick
  AlgorithmSet offered = 0;  // algorithms NCCL offered in any of those calls (cost entry >= 0)
};

struct ForcedReport {
  std::uint64_t calls = 0;     // getCollInfo calls since set_forced()
  std::uint64_t applied = 0;   // calls that took the forced choice
  std::uint64_t rejected = 0;  // calls where NCCL marked it unsupported; NCCL chose itself
  std::string reason;          // why the last rejected call could not take it
  // The point is measurable only when at least one call ran and every call took the choice;
  // otherwise the worker records it as skipped with `reason`.
  bool applicable() const noexcept { return calls > 0 && rejected == 0; }
};

class SweepControl {
 public:
  static SweepControl& instance() noexcept;

  // Each starts a new point: counters and the observation are reset.
  void set_forced(ForcedChoice choice);
  void set_observe();
  void set_off();  // back to production behaviour (CCTUNE_PROFILE, if any)

  SweepMode mode() const noexcept { return mode_.load(std::memory_order_acquire); }
  std::optional<Observation> last_observation() const;
  ForcedReport forced_report() const;

  // Called by the plugin for every getCollInfo. Returns false when the mode is Off, so the
  // plugin goes on to its profile; true when the call was handled here.
  bool on_get_coll_info(int nccl_func, std::uint64_t n_bytes, float* cost_table, int num_algo, int num_proto,
                        int* n_channels) noexcept;

  SweepControl() = default;  // tests make their own; production code uses instance()
  SweepControl(const SweepControl&) = delete;
  SweepControl& operator=(const SweepControl&) = delete;

 private:
  void reset_locked(SweepMode mode);
  void observe_locked(int nccl_func, std::uint64_t n_bytes, Algorithm algorithm, Protocol protocol, AlgorithmSet offered);

  std::atomic<SweepMode> mode_{SweepMode::Off};
  mutable std::mutex mutex_;  // guards everything below; taken only in sweep modes
  ForcedChoice forced_;
  std::optional<Observation> observation_;
  ForcedReport report_;
};

}  // namespace cctune::tuner
