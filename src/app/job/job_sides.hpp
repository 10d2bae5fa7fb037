#pragma once
// What `cctune verify --job` and `tune --job` run the user's job with: one side is NCCL's
// defaults, another a profile (its nccl.env settings and the tuner plugin reading it). Every
// side also loads the profiler half, which times the job's steps (workload/step_cadence.hpp)
// without any change to the job, so both sides carry the same small overhead.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "app/ab/ab_side.hpp"
#include "workload/workload.hpp"

namespace cctune::app {

// A side is the A/B family's (app/ab/ab_side.hpp): verify's rounds and the job race run the same two.
// What every run of a race starts from: the caller's environment less what would make a side
// other than it is labelled (review R7). A deployment in force (`set -a; . nccl.env`) leaves
// NCCL_TUNER_PLUGIN and CCTUNE_PROFILE set, and the profile's own settings: on the "NCCL
// defaults" side they would run the old profile. So the tuner variables, cctune's own CCTUNE_*
// and every key a side sets are removed (`removed`, to be said and recorded); the caller's other
// NCCL_* settings stay and apply to every side alike (`kept_nccl`).
struct RaceBase {
  std::map<std::string, std::string> env;
  std::vector<std::string> removed;              // the caller's variables not passed on
  std::map<std::string, std::string> kept_nccl;  // the caller's NCCL settings every side runs with
};
RaceBase race_base(const std::map<std::string, std::string>& caller, const std::vector<const AbSide*>& sides);

// The environment of one run: `base` (race_base's), then `side`'s settings, then cctune's own
// variables last, so that no side can change them: the profiler half (`plugin` as
// NCCL_PROFILER_PLUGIN, recording into `workload_dir`, told the job's `steps` when given).
std::map<std::string, std::string> run_environment(const std::map<std::string, std::string>& base, const AbSide& side,
                                                   const std::string& plugin, const std::string& workload_dir,
                                                   std::optional<std::uint64_t> steps);

// The job's step time in one run, from the profiler files its processes wrote in `workload_dir`.
// A process may find its step a multiple of another's (a noisy run: two steps whose durations
// look even together), so processes are compared per call of their step, which is the job's
// throughput whatever the step's length.
struct StepTime {
  double ms_per_call = 0;            // median over the processes that timed steps of step_ms / calls a step
  std::uint64_t calls_per_step = 0;  // the length most processes found (ties: the shortest)
  double step_ms = 0;                // ms_per_call x calls_per_step
  int processes = 0;                 // files that timed steps
  std::uint64_t timed_steps = 0;     // the fewest of any process
  std::optional<workload::TunerReport> tuner;  // the tuner halves' records, merged (profile_effect.hpp)
};
// Throws RuntimeFailure naming `workload_dir` when no file timed any step.
StepTime read_step_time(const std::string& workload_dir);

}  // namespace cctune::app
