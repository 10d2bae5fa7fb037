#pragma once
// The tuner half's record for the profiler half's file: what the same library did as NCCL's
// tuner in this process (tuner/plugin/production_profile.hpp TunerActivity), so that
// `cctune verify --job` can tell a profile that changed nothing in the job from one that did.
#include <optional>

#include "workload/workload.hpp"

namespace cctune::tuner {

// nullopt when this process neither loaded cctune's tuner nor set CCTUNE_PROFILE.
std::optional<workload::TunerReport> tuner_report();

}  // namespace cctune::tuner
