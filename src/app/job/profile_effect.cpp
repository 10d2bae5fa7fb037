#include "app/job/profile_effect.hpp"

#include "core/text.hpp"

namespace cctune::app {

std::string changed_nothing(const tuner::Profile& profile, const std::optional<workload::TunerReport>& report) {
  if (!profile.env.empty()) return {};
  // tune keeps NCCL's defaults where nothing beats them beyond noise: the report's counts would
  // then blame the job's communicators for rules that do not exist.
  if (profile.rules.empty()) return "the profile sets nothing (no NCCL environment, no rules: tune kept NCCL's defaults)";
  return rules_inert(report);
}

std::string rules_inert(const std::optional<workload::TunerReport>& report) {
  if (!report || report->communicators == 0)
    return "NCCL did not load cctune's tuner in the job's processes (does the job pass NCCL_TUNER_PLUGIN and CCTUNE_PROFILE on to "
           "them? mpirun: -x NCCL_TUNER_PLUGIN -x CCTUNE_PROFILE)";
  if (!report->problem.empty()) return "the tuner did not use the profile: " + text::log_text(report->problem, 512);
  if (report->with_rules == 0)
    return "no rule of the profile is for the job's communicators (its " + std::to_string(report->communicators) +
           " communicator(s) have other ranks or nodes than the profile's rules)";
  if (report->calls_steered == 0) return "no call of the job fell in a rule's sizes, or NCCL could not run a rule's choice";
  return {};
}

}  // namespace cctune::app
