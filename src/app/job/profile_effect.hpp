#pragma once
// Whether a profile changed anything in the job it was raced on (review R8). A profile whose
// rules the job's tuner never applied, and which sets no environment, runs NCCL's defaults on
// both sides: its race reads "same", which says nothing about the profile. The tuner half of the
// library records what it did in each process (workload::TunerReport, in the profiler files),
// so the profile side's first run tells: the profile sets nothing at all, NCCL never loaded
// cctune's tuner, the tuner refused the profile (another NCCL version, another topology), no rule
// was for the job's communicators, or no call was steered. docs/WORKLOAD.md "Verify on the job".
#include <optional>
#include <string>

#include "tuner/profile/profile.hpp"
#include "workload/workload.hpp"

namespace cctune::app {

// Why the profile's rules steered no call in a run whose processes' tuner records merged to
// `report` (nullopt: no process loaded cctune's tuner nor read a CCTUNE_PROFILE); empty when they
// steered some.
std::string rules_inert(const std::optional<workload::TunerReport>& report);
// The same when `profile` also sets no environment: then it changed nothing at all in the run.
std::string changed_nothing(const tuner::Profile& profile, const std::optional<workload::TunerReport>& report);

}  // namespace cctune::app
