#include "tuner/plugin/sweep_control.hpp"

#include "tuner/plugin/cost_table.hpp"
#include "tuner/plugin/nccl_func.hpp"
#include "tuner/profile/profile.hpp"

namespace cctune::tuner {
namespace {

std::optional<Collective> collective_of(int nccl_func) { return collective_from_nccl_func(nccl_func); }

std::string describe_call(int nccl_func, std::uint64_t n_bytes) {
  const auto c = collective_of(nccl_func);
  const std::string name = c ? std::string(profile_collective_name(*c)) : "ncclFunc " + std::to_string(nccl_func);
  return name + " of " + std::to_string(n_bytes) + " bytes";
}

}  // namespace

SweepControl& SweepControl::instance() noexcept {
  static SweepControl control;
  return control;
}

void SweepControl::reset_locked(SweepMode mode) {
  observation_.reset();
  report_ = ForcedReport{};
  mode_.store(mode, std::memory_order_release);
}

void SweepControl::set_forced(ForcedChoice choice) {
  std::lock_guard lock(mutex_);
  forced_ = choice;
  reset_locked(SweepMode::Forced);
}

void SweepControl::set_observe() {
  std::lock_guard lock(mutex_);
  reset_locked(SweepMode::Observe);
}

void SweepControl::set_off() {
  std::lock_guard lock(mutex_);
  reset_locked(SweepMode::Off);
}

std::optional<Observation> SweepControl::last_observation() const {
  std::lock_guard lock(mutex_);
  return observation_;
}

ForcedReport SweepControl::forced_report() const {
  std::lock_guard lock(mutex_);
  return report_;
}

void SweepControl::observe_locked(int nccl_func, std::uint64_t n_bytes, Algorithm algorithm, Protocol protocol,
                                  AlgorithmSet offered) {
  if (!observation_) {
    observation_ = Observation{nccl_func, collective_of(nccl_func), n_bytes, algorithm, protocol, 1, true, offered};
    return;
  }
  Observation& o = *observation_;
  o.consistent = o.consistent && o.algorithm == algorithm && o.protocol == protocol;
  o.nccl_func = nccl_func;
  o.collective = collective_of(nccl_func);
  o.n_bytes = n_bytes;
  o.algorithm = algorithm;
  o.protocol = protocol;
  o.offered |= offered;
  ++o.calls;
}

bool SweepControl::on_get_coll_info(int nccl_func, std::uint64_t n_bytes, float* cost_table, int num_algo, int num_proto,
                                    int* n_channels) noexcept {
  if (mode() == SweepMode::Off) return false;
  try {
    std::lock_guard lock(mutex_);
    const SweepMode mode = mode_.load(std::memory_order_relaxed);
    if (mode == SweepMode::Off) return false;  // switched off while we waited
    CostTable table(cost_table, num_algo, num_proto);
    // Record NCCL's own pick before changing anything: "auto" points report it, forced
    // points keep it for comparison.
    if (auto cell = table.cheapest())
      if (auto a = algorithm_from_index(cell->algorithm))
        if (auto p = protocol_from_index(cell->protocol)) observe_locked(nccl_func, n_bytes, *a, *p, table.offered());
    if (mode == SweepMode::Observe) return true;

    ++report_.calls;
    const int algorithm = static_cast<int>(forced_.algorithm);
    const int protocol = static_cast<int>(forced_.protocol);
    if (table.choose(algorithm, protocol)) {
      if (forced_.channels > 0 && n_channels) *n_channels = forced_.channels;
      ++report_.applied;
      return true;
    }
    ++report_.rejected;
    const std::string choice = algo_proto_name(forced_.algorithm, forced_.protocol);
    report_.reason = table.contains(algorithm, protocol)
                         ? "NCCL marks " + choice + " unsupported for " + describe_call(nccl_func, n_bytes) +
                               " on this communicator (cost table entry < 0)"
                         : choice + " is outside this NCCL's cost table (" + std::to_string(num_algo) + " algorithms x " +
                               std::to_string(num_proto) + " protocols)";
    return true;
  } catch (...) {
    return true;  // leave NCCL's choice alone; never throw into NCCL
  }
}

}  // namespace cctune::tuner
