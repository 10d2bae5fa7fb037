#include "workload/step_cadence.hpp"

#include <algorithm>
#include <cmath>

#include "workload/step_reasons.hpp"
#include "workload/step_search.hpp"

namespace cctune::workload {
namespace {

using step_search::Region;
using step_search::Run;

constexpr std::uint64_t kMaxPeriodMultiple = 64;
constexpr std::uint64_t kMinPhaseSamples = 6;  // durations each phase of a pattern needs
constexpr double kPatternStrength = 0.5;  // (max - min) of the phase medians / their mean
constexpr double kPhaseTolerance = 0.25;  // a duration within this x their mean of its phase's median
constexpr double kPhaseAgreement = 0.75;  // share of a phase's durations that must be within it

using step_reasons::Reading;

// The issue time of unit j's last call.
double unit_end_ns(const std::vector<TimedCall>& c, const Region& r, std::size_t j) {
  return static_cast<double>(c[r.starts[j] + r.period - 1].issue_ns);
}

double median_of(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

// Durations of consecutive units with no extra call between them, each with its unit's place
// counted from the last unit (the last first).
std::vector<std::pair<std::uint64_t, double>> unit_durations(const std::vector<TimedCall>& c, const Region& r) {
  std::vector<std::pair<std::uint64_t, double>> d;
  for (std::size_t j = r.units(); j-- > 1;)
    if (r.extras_before(j) == 0) d.emplace_back(r.units() - 1 - j, unit_end_ns(c, r, j) - unit_end_ns(c, r, j - 1));
  return d;
}

// The medians of the durations' m phases (the place of a unit modulo m); empty where a phase
// has too few durations to tell.
std::vector<double> phase_medians(const std::vector<std::pair<std::uint64_t, double>>& d, std::uint64_t m,
                                  std::vector<std::vector<double>>& phases) {
  phases.assign(m, {});
  for (const auto& [place, ns] : d) phases[place % m].push_back(ns);
  std::vector<double> medians;
  for (const auto& phase : phases) {
    if (phase.size() < kMinPhaseSamples / 2) return {};
    medians.push_back(median_of(phase));
  }
  return medians;
}

// Whether the durations repeat a pattern `m` units long: the medians of the m phases differ
// by more than kPatternStrength of their mean, and each phase's durations agree with its
// median. A busy host stretches random units (a preempted process); those land in every
// phase alike, so they neither make a pattern nor hide one that most steps show.
bool repeats_pattern_of(const std::vector<std::pair<std::uint64_t, double>>& d, std::uint64_t m) {
  std::vector<std::vector<double>> phases;
  const std::vector<double> medians = phase_medians(d, m, phases);
  if (medians.empty()) return false;
  double mean = 0;
  for (double x : medians) mean += x / static_cast<double>(m);
  if (!(mean > 0)) return false;
  const auto [lo, hi] = std::minmax_element(medians.begin(), medians.end());
  if ((*hi - *lo) / mean <= kPatternStrength) return false;
  for (std::uint64_t j = 0; j < m; ++j) {
    std::size_t agree = 0;
    for (double x : phases[j]) agree += std::abs(x - medians[j]) <= kPhaseTolerance * mean ? 1 : 0;
    if (static_cast<double>(agree) < kPhaseAgreement * static_cast<double>(phases[j].size())) return false;
  }
  return true;
}

// A step that issues one shape several times (DDP's equal gradient buckets) repeats already
// after a part of it. Its calls come close together (the backward pass) and the step ends
// after a gap (optimizer, next forward), so the units' durations follow a pattern as long as
// the step: the step is the smallest such pattern's units; one unit when there is none.
std::uint64_t pattern_multiple(const std::vector<TimedCall>& c, const Region& r) {
  const auto d = unit_durations(c, r);
  for (std::uint64_t m = 2; m <= kMaxPeriodMultiple; ++m) {
    if (m * r.period > kMaxStepCalls || d.size() < kMinPhaseSamples * m) break;
    if (repeats_pattern_of(d, m)) return m;
  }
  return 1;
}

// Whether the region's units make kMinUnitsPerCycle steps or more of a cycle of `cycle_run`
// (`units` units, the rest extra calls) that fill half of its time or more: training steps
// with an evaluation between them fill their cycle, while a DDP step's equal gradient buckets
// come together in its backward pass, a small part of the step. The region's own pattern
// (pattern_multiple) gives its steps: an evaluation every k DDP steps is k steps of buckets.
// False where calls are not timed.
bool steps_fill_cycle(const std::vector<TimedCall>& c, const Region& r, const Run& cycle_run, std::uint64_t units) {
  const std::uint64_t m = pattern_multiple(c, r);
  if (units % m != 0 || units / m < step_search::kMinUnitsPerCycle || cycle_run.repeats() < 2) return false;
  std::vector<std::vector<double>> phases;
  const std::vector<double> medians = phase_medians(unit_durations(c, r), m, phases);
  if (medians.empty()) return false;
  double step_ns = 0;
  for (double x : medians) step_ns += x;
  const std::uint64_t last = cycle_run.end - 1, first = last - (cycle_run.repeats() - 1) * cycle_run.period;
  const double cycle =
      (static_cast<double>(c[last].issue_ns) - static_cast<double>(c[first].issue_ns)) / static_cast<double>(cycle_run.repeats() - 1);
  return cycle > 0 && static_cast<double>(units / m) * step_ns >= cycle / 2;
}

// What the calls' shapes show, before the units are grouped into steps: the region of units
// (step_search.hpp), or nullopt where no run repeats.
std::optional<Region> detect(const std::vector<std::uint32_t>& s, const std::vector<TimedCall>& c) {
  const std::uint64_t n = s.size();
  Run run = step_search::longest_anchored_run(s, std::min(kMaxStepCalls, n / kMinSteadySteps), kMinSteadySteps);
  // Twice only: extra calls between the repeats may still make three steps or more of it.
  if (run.period == 0) run = step_search::longest_anchored_run(s, std::min(kMaxStepCalls, n / 2), 2);
  if (run.period == 0) return std::nullopt;
  std::uint64_t extra = 0;
  if (const auto unit = step_search::inner_unit(s, run, extra)) {
    Region r = step_search::tile_run(s, *unit);
    // Fewer extra calls than the unit has: an evaluation's between training steps. As many or
    // more (a unit of one call): the same sequence is one DDP step of equal buckets among
    // others, which only the units' times tell apart.
    if (extra < unit->period || steps_fill_cycle(c, r, run, (run.period - extra) / unit->period)) return r;
  }
  return step_search::tile_run(s, run);
}

// From the end of unit `from` to the end of unit `to`: `steps` steps.
struct Window {
  std::size_t from = 0, to = 0;
  std::uint64_t steps = 0;
};

// The steady steps after the warm-up (the first step and a tenth of the rest): the last ones,
// or, where extra calls recur (an evaluation every k steps), whole cycles from the first extra
// call after the warm-up to the last, so that every run of a job times the same share of them.
Window timed_window(const Reading& rd, std::uint64_t steady) {
  const Region& r = rd.region;
  const std::uint64_t m = rd.units_per_step, units = r.units(), warm_up = 1 + (steady - 1) / 10;
  std::vector<std::size_t> before_extra;
  for (std::size_t j = 1; j < units; ++j)
    if (r.extras_before(j) > 0 && j >= warm_up * m) before_extra.push_back(j - 1);
  if (before_extra.size() >= 2 && (before_extra.back() - before_extra.front()) % m == 0)
    return {before_extra.front(), before_extra.back(), (before_extra.back() - before_extra.front()) / m};
  const std::uint64_t timed = steady - warm_up;
  return {units - 1 - timed * m, units - 1, timed};
}

StepFinding time_steps(const CadenceInput& in, const std::vector<std::uint32_t>& s, const Reading& rd, std::optional<std::uint64_t> told) {
  const std::vector<TimedCall>& c = *in.calls;
  const Region& r = rd.region;
  const std::uint64_t steady = r.units() / rd.units_per_step;
  const bool enough = told ? steady >= 2 : steady >= kMinSteadySteps && (steady - 1) * r.period * rd.units_per_step >= kMinRepeatedCalls;
  if (!enough) return {std::nullopt, step_reasons::too_few_steps(in, s, rd, steady)};
  const Window w = timed_window(rd, steady);
  const double from = unit_end_ns(c, r, w.from), to = unit_end_ns(c, r, w.to);
  if (to < from) return {std::nullopt, step_reasons::clock_went_back(in, r.starts[w.from], r.starts[w.to])};
  StepCadence out;
  out.calls_per_step = r.period * rd.units_per_step;
  const bool whole_job_seen = in.total_calls == c.size();  // the start-up is in view: it is no step
  const double span = static_cast<double>(r.end() - r.begin());
  out.steps = told             ? static_cast<double>(*told)
              : whole_job_seen ? static_cast<double>(steady)
                               : static_cast<double>(in.total_calls) * static_cast<double>(steady) / span;
  out.timed_steps = w.steps;
  out.step_ms = (to - from) / 1e6 / static_cast<double>(w.steps);
  return {out, {}};
}

// --steps against calls that repeat `r`'s unit: the told step is total / steps calls rounded
// down (start-up and extra calls fewer than the steps do not change it), or up where the calls
// end inside a step (the job stopped mid-step) short of less than a step, and a whole number of
// units; where the whole job is in view, its calls hold that many steps.
std::optional<Reading> agreed_reading(const CadenceInput& in, const std::vector<std::uint32_t>& s, const Region& r) {
  const std::uint64_t n = s.size(), total = in.total_calls, steps = *in.steps, unit_calls = r.units() * r.period;
  const bool cut = step_search::partial_unit_after(s, r) > 0;
  const auto ends_mid_step = [&](std::uint64_t period) { return cut || unit_calls % period != 0; };
  const std::uint64_t down = total / steps, up = down + 1;
  std::uint64_t period = 0;
  if (down % r.period == 0)
    period = down;
  else if (up % r.period == 0 && ends_mid_step(up) && steps * up - total < up)
    period = up;
  if (period == 0) return std::nullopt;
  // The calls before the region may be steps (a checkpoint's calls between them broke the
  // repetition); those after it are a few extra calls, or the cut step.
  const std::uint64_t most = unit_calls / period + r.begin() / period + (ends_mid_step(period) ? 1 : 0);
  if (total == n && steps > most) return std::nullopt;
  return Reading{r, period / r.period};
}

// The job's own step count (CadenceInput::steps). Calls that repeat nothing are taken as they
// come, in steps of total / steps calls from the last one, where that leaves few calls over.
StepFinding told_steps(const CadenceInput& in, const std::vector<std::uint32_t>& s) {
  const std::uint64_t n = s.size(), total = in.total_calls, steps = *in.steps;
  if (steps == 0 || steps > total) return {std::nullopt, step_reasons::more_steps_than_calls(in)};
  const std::optional<Region> found = detect(s, *in.calls);
  const bool repeats = found && found->units() >= kMinSteadySteps && 2 * (found->end() - found->begin()) >= n;
  Reading rd;
  if (repeats) {
    const auto agreed = agreed_reading(in, s, *found);
    if (!agreed) return {std::nullopt, step_reasons::steps_disagree(in, *found)};
    rd = *agreed;
  } else {
    const std::uint64_t period = total / steps, left = total - steps * period;
    if (2 * left > steps) return {std::nullopt, step_reasons::steps_not_close(in, period, left)};
    rd.region.period = period;
    for (std::uint64_t k = n / period; k >= 1; --k) rd.region.starts.push_back(n - k * period);
  }
  if (rd.region.period * rd.units_per_step > kMaxStepCalls) return {std::nullopt, step_reasons::told_step_too_long(in, rd)};
  return time_steps(in, s, rd, steps);
}

}  // namespace

StepFinding find_step(const CadenceInput& in) {
  if (!in.calls || in.calls->empty() || in.total_calls < in.calls->size()) return {std::nullopt, step_reasons::no_calls()};
  std::vector<std::uint32_t> s;
  s.reserve(in.calls->size());
  for (const TimedCall& call : *in.calls) s.push_back(call.shape);
  if (in.steps) return told_steps(in, s);
  const std::optional<Region> found = detect(s, *in.calls);
  if (!found) return {std::nullopt, step_reasons::no_repeat(in, s)};
  Reading rd{*found, pattern_multiple(*in.calls, *found)};
  if (rd.region.period * rd.units_per_step > kMaxStepCalls) rd.units_per_step = 1;
  return time_steps(in, s, rd, std::nullopt);
}

std::optional<StepCadence> find_cadence(const CadenceInput& in) { return find_step(in).cadence; }

}  // namespace cctune::workload
