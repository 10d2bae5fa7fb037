#pragma once
// `cctune verify --job --profile P [--rounds N] -- CMD ARGS...`: the user's job run in N
// interleaved pairs, NCCL's defaults against the profile, each run timed by its step time
// (the profiler half, loaded into the job: job_sides.hpp); the paired speedup with its
// interval, exit 4 when the profile is slower beyond noise. docs/WORKLOAD.md "Verify on the job".
#include <string>

#include "app/job/job_race.hpp"

namespace cctune::app {

class Session;

int run_verify_job(Session& session, const std::string& profile_path, const JobArgs& args);

// One stderr line naming the caller's variables race_base left out, when there are any.
struct RaceBase;
void say_caller_settings(const RaceBase& base);

}  // namespace cctune::app
