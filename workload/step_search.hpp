#pragma once
// How step_cadence.cpp finds the repeating part of one communicator's calls (its shapes only;
// step_cadence.cpp times it). Jobs are not clean repetitions: start-up calls come before the
// first step, a barrier, a metrics reduction or a checkpoint after the last, a crash cuts the
// last step, and an evaluation adds a call or two every few steps. So:
// 1. the period whose run of calls equal to the call one period before covers the most calls
//    is the candidate (ties: the shortest period), among runs that end within
//    kMaxTrailingCalls of the last call: the job's steady state is its latest, and what came
//    after it is no more than a few calls or a cut step;
// 2. a period that is a cycle of a shorter unit repeated 3 times or more plus 1 to 3 other
//    calls (an evaluation every k steps) may give that unit instead (inner_unit);
// 3. the unit is then tiled over the calls around its run, stepping over up to kMaxExtraCalls
//    calls between two units (tile_run): the region the steps cover.
// Pure: no clock, no files.
#include <cstdint>
#include <optional>
#include <vector>

namespace cctune::workload::step_search {

// Calls between two steps that do not stop the steps around them (an evaluation's all-reduce,
// a metrics reduction and a barrier; a checkpoint's broadcast).
inline constexpr std::uint64_t kMaxExtraCalls = 3;
// A unit repeated fewer times than this in a cycle is no step of its own: the cycle is. Extra
// calls are stepped over only this many units apart (or more), so units among other calls do
// not become steps.
inline constexpr std::uint64_t kMinUnitsPerCycle = 3;
// Calls after the last step that leave it the job's steady state (a barrier, a final metrics
// reduction, a checkpoint's few calls).
inline constexpr std::uint64_t kMaxTrailingCalls = 16;

// Calls [begin, end) that repeat with `period`: each one past the first period equals the call
// one period before it.
struct Run {
  std::uint64_t period = 0, begin = 0, end = 0;
  std::uint64_t length() const { return end - begin; }
  std::uint64_t repeats() const { return period ? length() / period : 0; }
};

// Over periods 1..max_period, the longest run that repeats at least `min_repeats` times and
// ends within kMaxTrailingCalls of the last call (covering the most calls; ties: the shortest
// period, as a multiple of the step repeats over the same calls). period 0 when none.
Run longest_anchored_run(const std::vector<std::uint32_t>& s, std::uint64_t max_period, std::uint64_t min_repeats);
// The longest run of `period` that ends within kMaxTrailingCalls of the last call.
Run anchored_run_of(const std::vector<std::uint32_t>& s, std::uint64_t period);
// The longest run of `period` inside calls [from, to), wherever it ends.
Run longest_run_of(const std::vector<std::uint32_t>& s, std::uint64_t period, std::uint64_t from, std::uint64_t to);

// Units of `period` calls that repeat one sequence, in order; the calls between two of them (at
// most kMaxExtraCalls) are extra calls.
struct Region {
  std::uint64_t period = 0;
  std::vector<std::uint64_t> starts;  // the first call of each unit, ascending
  std::uint64_t units() const { return starts.size(); }
  std::uint64_t begin() const { return starts.empty() ? 0 : starts.front(); }
  std::uint64_t end() const { return starts.empty() ? 0 : starts.back() + period; }
  // Calls between unit j - 1 and unit j (0 for j = 0).
  std::uint64_t extras_before(std::size_t j) const { return j == 0 ? 0 : starts[j] - starts[j - 1] - period; }
};

// The unit of `run` tiled over the calls around it, from each place its units may begin (either
// end of the run where a call broke it, or the end of the calls): the region spanning the most
// calls. An extra call at a step's boundary is only stepped over from the right boundary, and a
// start-up or trailing call that happens to equal a step's call moves one end of the run. Extra
// calls are stepped over where kMinUnitsPerCycle units or more come between them.
Region tile_run(const std::vector<std::uint32_t>& s, const Run& run);

// When `run`'s period is a cycle of a shorter unit repeated kMinUnitsPerCycle times or more and
// 1 to kMaxExtraCalls other calls, the unit's run inside one cycle (the shortest such unit);
// nullopt otherwise. `extra` receives the other calls' count.
std::optional<Run> inner_unit(const std::vector<std::uint32_t>& s, const Run& run, std::uint64_t& extra);

// How many of the calls after `region` continue its last unit's sequence (a step cut short: the
// job crashed, or the capture was written while a step ran), fewer than a unit.
std::uint64_t partial_unit_after(const std::vector<std::uint32_t>& s, const Region& region);

}  // namespace cctune::workload::step_search
