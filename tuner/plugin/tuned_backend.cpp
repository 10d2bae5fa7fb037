#include "tuner/plugin/tuned_backend.hpp"

#include "core/collective_traits.hpp"
#include "core/error.hpp"

namespace cctune {

std::optional<tuner::ForcedChoice> forced_choice(const PointConfig& config) {
  if (config.is_default()) return std::nullopt;
  if (!config.algo || !config.proto)
    throw UsageError("config " + algo_proto_name(config.algo, config.proto) + "/" + std::to_string(config.channels) +
                         " forces only part of the choice",
                     "name both an algorithm and a protocol (e.g. ring/simple), or leave all three on auto");
  if (config.channels < 0) throw UsageError("negative channel count " + std::to_string(config.channels));
  return tuner::ForcedChoice{*config.algo, *config.proto, config.channels};
}

std::string point_to_point_forcing_reason(Collective c) {
  if (is_tunable(c)) return {};
  return to_string(c) +
         " runs on NCCL's point-to-point path; tune it through process-level groups (--env-group, e.g. "
         "NCCL_P2P_NET_CHUNKSIZE), not a forced algorithm/protocol";
}

TunedBackend::TunedBackend(std::unique_ptr<CollectiveBackend> inner, tuner::SweepControl& control, int nranks)
    : inner_(std::move(inner)), control_(control), nranks_(nranks) {
  if (!inner_) throw RuntimeFailure("TunedBackend needs a backend");
}

TunedBackend::~TunedBackend() {
  try {
    control_.set_off();
  } catch (...) {
  }
}

void TunedBackend::apply(const PointConfig& config) const {
  if (const auto choice = forced_choice(config))
    control_.set_forced(*choice);
  else
    control_.set_observe();
}

std::string TunedBackend::unsupported_reason(const PointSpec& spec) const {
  std::string why_not = inner_->unsupported_reason(spec);
  if (!why_not.empty()) return why_not;
  std::optional<tuner::ForcedChoice> choice;
  try {
    choice = forced_choice(spec.config);
  } catch (const Error& e) {
    return e.describe();
  }
  if (!choice) return {};
  if (std::string p2p = point_to_point_forcing_reason(spec.collective); !p2p.empty()) return p2p;
  if (nranks_ == 1) return "a single rank runs no NCCL algorithm (NCCL copies the data); forcing one needs 2 or more GPUs";
  const ProbeKey key{static_cast<int>(spec.collective), static_cast<int>(spec.dtype), static_cast<int>(spec.op),
                     spec.in_place, spec.bytes.param_count, choice->algorithm, choice->protocol, choice->channels};
  if (auto it = probes_.find(key); it != probes_.end()) return it->second;
  // One real operation under the forced choice; the plugin records whether NCCL took it.
  control_.set_forced(*choice);
  inner_->prepare(spec);
  inner_->run_wall(1);
  const tuner::ForcedReport report = control_.forced_report();
  if (report.calls == 0)
    why_not = "the tuner plugin was not consulted, so " + algo_proto_name(choice->algorithm, choice->protocol) +
              " cannot be forced (workers need NCCL_TUNER_PLUGIN=STATIC_PLUGIN and a cctune built with the plugin)";
  else if (!report.applicable())
    why_not = report.reason.empty() ? "NCCL rejected " + algo_proto_name(choice->algorithm, choice->protocol) : report.reason;
  probes_.emplace(key, why_not);
  return why_not;
}

void TunedBackend::prepare(const PointSpec& spec) {
  current_ = spec.config;
  observation_.reset();
  report_.reset();
  offered_ = 0;
  apply(current_);
  inner_->prepare(spec);
}

BatchTiming TunedBackend::run_batch(const BatchRequest& batch) {
  apply(current_);  // fresh counters for this batch alone (wall and per-operation batches alike)
  BatchTiming timing = inner_->run_batch(batch);
  snapshot();
  return timing;
}

void TunedBackend::snapshot() {
  if (auto o = control_.last_observation(); o && o->calls > 0) {
    observation_ = o;
    offered_ |= o->offered;
  }
  if (control_.mode() == tuner::SweepMode::Forced)
    if (auto r = control_.forced_report(); r.calls > 0) report_ = r;
}

PointConfig TunedBackend::chosen() const {
  PointConfig ran = inner_->chosen();
  if (report_ && report_->applicable()) {
    ran.algo = current_.algo;
    ran.proto = current_.proto;
    ran.channels = current_.channels;
  } else if (observation_) {
    ran.algo = observation_->algorithm;
    ran.proto = observation_->protocol;
    ran.channels = 0;  // NCCL's own count; the plugin does not see it
  }
  return ran;
}

AlgorithmSet TunedBackend::offered_algorithms() const { return offered_; }

std::unique_ptr<CollectiveBackend> wrap_with_sweep_control(std::unique_ptr<CollectiveBackend> backend, RankComm& comm) {
  return std::make_unique<TunedBackend>(std::move(backend), tuner::SweepControl::instance(), comm.size());
}

}  // namespace cctune
