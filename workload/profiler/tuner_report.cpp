#include "workload/profiler/tuner_report.hpp"

#include "tuner/plugin/production_profile.hpp"

namespace cctune::tuner {

std::optional<workload::TunerReport> tuner_report() {
  const TunerActivity& a = tuner_activity();
  const std::uint64_t communicators = a.communicators.load(std::memory_order_relaxed);
  const ProductionProfile& production = production_profile();
  if (communicators == 0 && production.path.empty()) return std::nullopt;
  workload::TunerReport r;
  r.profile = production.path.substr(0, workload::max_tuner_text);
  r.problem = production.problem.substr(0, workload::max_tuner_text);
  r.communicators = communicators;
  r.with_rules = a.with_rules.load(std::memory_order_relaxed);
  r.calls_steered = a.calls_steered.load(std::memory_order_relaxed);
  return r;
}

}  // namespace cctune::tuner
