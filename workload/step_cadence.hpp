#pragma once
// A job's steps as one communicator's call sequence shows them. A training step issues the
// same calls in the same order every time (DDP's gradient buckets, FSDP's gathers and
// reductions), so the steady part of the sequence repeats with a period of one step; start-up
// calls (parameter broadcasts, a first full-model all-reduce, NCCL's connection set-up inside
// the first calls) come before it. The profiler half keeps the last calls' shapes and issue
// times and writes what this finds into its workload file; `cctune verify --job` and
// `tune --job` time a job by it, and replay takes the capture's step count from it.
// Pure: no clock, no files. docs/WORKLOAD.md "Steps".
#include <cstdint>
#include <optional>
#include <vector>

namespace cctune::workload {

struct StepCadence {
  std::uint64_t calls_per_step = 0;  // the period of the steady sequence
  double steps = 0;                  // steps the communicator's calls cover (start-up left out where seen)
  std::uint64_t timed_steps = 0;     // steps timed: the steady ones after the warm-up steps
  double step_ms = 0;                // mean issue-to-issue time of one step over the timed steps
  bool operator==(const StepCadence&) const = default;
};

// One call as the profiler saw it issued.
struct TimedCall {
  std::uint32_t shape = 0;    // an id of its shape (equal shapes, equal ids)
  std::uint64_t issue_ns = 0;  // host monotonic clock
};

inline constexpr std::uint64_t kMaxStepCalls = 4096;  // a longer period is not looked for
inline constexpr std::uint64_t kMinSteadySteps = 3;   // fewer repeats are no cadence

struct CadenceInput {
  const std::vector<TimedCall>* calls = nullptr;  // the last calls, oldest first
  std::uint64_t total_calls = 0;  // calls the communicator issued in all (calls holds the last of them)
  // The job's own step count (--steps N): the period is then total_calls / steps, rounded down
  // (start-up calls fewer than the steps do not change it).
  std::optional<std::uint64_t> steps;
};

// The cadence of `in`, or nullopt when its calls do not repeat (fewer than kMinSteadySteps
// periods, a period over kMaxStepCalls, or --steps above the calls). The period
// is the one whose repeating tail is longest (ties: the shortest period), so a run of equal
// calls inside a step is not mistaken for the step. The first steady step, and a tenth of the
// rest, are warm-up and not timed.
std::optional<StepCadence> find_cadence(const CadenceInput& in);

}  // namespace cctune::workload
