#pragma once
// A job's steps as one communicator's call sequence shows them. A training step issues the
// same calls in the same order every time (DDP's gradient buckets, FSDP's gathers and
// reductions), so the steady part of the sequence repeats with a period of one step; start-up
// calls (parameter broadcasts, a first full-model all-reduce, NCCL's connection set-up inside
// the first calls) come before it, and a final barrier, metrics reduction or checkpoint after
// it; an evaluation may add a call every few steps (step_search.hpp says how each is told
// apart). The profiler half keeps the last calls' shapes and issue times and writes what this
// finds into its workload file, or why it found no step; `cctune verify --job` and `tune --job`
// time a job by it, and replay takes the capture's step count from it.
// Pure: no clock, no files. docs/WORKLOAD.md "Steps".
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace cctune::workload {

struct StepCadence {
  std::uint64_t calls_per_step = 0;  // the period of the steady sequence (extra calls between steps left out)
  double steps = 0;                  // steps the communicator's calls cover (start-up left out where seen)
  std::uint64_t timed_steps = 0;     // steps timed: the steady ones after the warm-up steps
  double step_ms = 0;                // mean issue-to-issue time of one step over the timed steps (extra calls' time included)
  bool operator==(const StepCadence&) const = default;
};

// One call as the profiler saw it issued.
struct TimedCall {
  std::uint32_t shape = 0;    // an id of its shape (equal shapes, equal ids)
  std::uint64_t issue_ns = 0;  // host monotonic clock
};

inline constexpr std::uint64_t kMaxStepCalls = 4096;  // a longer period is not looked for
inline constexpr std::uint64_t kMinSteadySteps = 3;   // fewer repeats are no cadence
// Nor are fewer calls after the first step: a few calls of a few shapes repeat by chance.
inline constexpr std::uint64_t kMinRepeatedCalls = 8;

struct CadenceInput {
  const std::vector<TimedCall>* calls = nullptr;  // the last calls, oldest first
  std::uint64_t total_calls = 0;  // calls the communicator issued in all (calls holds the last of them)
  // The job's own step count (--steps N): the period is then total_calls / steps, rounded down
  // (start-up calls fewer than the steps do not change it), and it must agree with the calls:
  // a multiple of the period they repeat with, and no more steps than they hold.
  std::optional<std::uint64_t> steps;
  // Names a shape id in the reason given when no step is found; empty: "shape <id>".
  std::function<std::string(std::uint32_t)> shape_name{};
};

// Why a communicator's calls show no step, in one line each: what the calls showed, and what
// to do about it.
struct NoStep {
  std::string reason;  // e.g. "its calls repeat a step of 3 calls only twice (calls 2 to 7 of 7); 3 steps are needed"
  std::string fix;     // e.g. "run the job for more steps (3 or more after its start-up), or pass --steps N ..."
  bool operator==(const NoStep&) const = default;
};

struct StepFinding {
  std::optional<StepCadence> cadence;
  NoStep no_step;  // empty where cadence is set
};

// The steps of `in`'s calls: the unit step_search finds, made several units long where its
// durations follow a pattern (DDP's equal gradient buckets), at least kMinSteadySteps steps
// (2 with --steps) of at most kMaxStepCalls calls. The first step and a tenth of the rest are
// warm-up and not timed; where extra calls recur between steps (an evaluation every k steps),
// the timed steps are whole cycles, so `step_ms` is the training step's time with the extra
// calls' time spread over the steps around them.
StepFinding find_step(const CadenceInput& in);
// find_step's cadence alone.
std::optional<StepCadence> find_cadence(const CadenceInput& in);

}  // namespace cctune::workload
