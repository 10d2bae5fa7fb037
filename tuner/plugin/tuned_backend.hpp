#pragma once
// A CollectiveBackend decorator that puts the NCCL backend's points under the control of
// cctune's tuner plugin (tuner/plugin/sweep_control.hpp). No CUDA or NCCL here: it lives in
// the cctune executable, next to the plugin, and wraps the backend that libcctune-nccl.so
// returns.
//
//  - "auto" points: the plugin only observes; chosen() reports NCCL's own (algo, proto).
//  - forced points ("ring"/"simple"/16 channels): the plugin makes NCCL take that choice;
//    unsupported_reason() finds out first, with one real operation, whether NCCL accepts it
//    for this (collective, size) on this communicator (cost-table entry >= 0). It is a
//    collective probe: every rank makes the same calls in the same order, as the engine does.
//
// Control is re-applied before every batch and what the plugin saw is read right after the
// batch, so collective traffic between batches cannot blur a point's observations.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>

#include "collectives/backend.hpp"
#include "comm/rank_comm.hpp"
#include "tuner/plugin/sweep_control.hpp"

namespace cctune {

// NCCL's own choice -> nullopt; ring/simple[/channels] -> the forced choice; throws UsageError
// when only part of the choice is forced.
std::optional<tuner::ForcedChoice> forced_choice(const PointConfig& config);

// Alltoall, sendrecv, gather and scatter are grouped ncclSend/ncclRecv: NCCL never asks the
// tuner about them, so a forced algorithm/protocol/channel count could not reach them. Points
// that force one are skipped with this reason (empty for the other collectives).
std::string point_to_point_forcing_reason(Collective c);

class TunedBackend final : public CollectiveBackend {
 public:
  // nranks: the communicator's size when known (0: unknown). NCCL runs one rank as a copy,
  // without consulting the tuner, so forced points are skipped there with that reason.
  explicit TunedBackend(std::unique_ptr<CollectiveBackend> inner,
                        tuner::SweepControl& control = tuner::SweepControl::instance(), int nranks = 0);
  ~TunedBackend() override;  // switches the plugin back off
  TunedBackend(const TunedBackend&) = delete;
  TunedBackend& operator=(const TunedBackend&) = delete;

  std::string name() const override { return inner_->name(); }
  std::string unsupported_reason(const PointSpec& spec) const override;
  void prepare(const PointSpec& spec) override;
  BatchTiming run_batch(const BatchRequest& batch) override;
  long count_wrong() override { return inner_->count_wrong(); }
  PointConfig chosen() const override;
  AlgorithmSet offered_algorithms() const override;
  std::optional<P2pImpl> implementation() const override { return inner_->implementation(); }

  CollectiveBackend& inner() { return *inner_; }

 private:
  void apply(const PointConfig& config) const;
  void snapshot();

  std::unique_ptr<CollectiveBackend> inner_;
  tuner::SweepControl& control_;
  int nranks_ = 0;
  PointConfig current_;
  // What the plugin saw in the latest batch that reached it (graph replays do not).
  std::optional<tuner::Observation> observation_;
  std::optional<tuner::ForcedReport> report_;
  tuner::AlgorithmSet offered_ = 0;  // union over the point's batches
  // Probe results per (collective, dtype, op, in_place, size, algo, proto, channels).
  using ProbeKey = std::tuple<int, int, int, bool, std::uint64_t, Algorithm, Protocol, int>;
  mutable std::map<ProbeKey, std::string> probes_;
};

// What the worker calls (src/runtime/worker_main.cpp): the module's backend under the
// process-wide SweepControl. `comm` is the workers' RankComm (only its size is used).
std::unique_ptr<CollectiveBackend> wrap_with_sweep_control(std::unique_ptr<CollectiveBackend> backend, RankComm& comm);

}  // namespace cctune
