#include "workload/step_cadence.hpp"

#include <algorithm>
#include <cmath>

namespace cctune::workload {
namespace {

constexpr std::uint64_t kMaxPeriodMultiple = 64;
constexpr std::uint64_t kMinPhaseSamples = 6;  // durations each phase of a pattern needs
constexpr double kPatternStrength = 0.5;  // (max - min) of the phase medians / their mean
constexpr double kPhaseTolerance = 0.25;  // a duration within this x their mean of its phase's median
constexpr double kPhaseAgreement = 0.75;  // share of a phase's durations that must be within it

struct Tail {
  std::uint64_t period = 0;
  std::uint64_t length = 0;  // calls at the end of the sequence that repeat with `period`
};

// The period whose repeating tail is longest; ties go to the shorter period (a multiple of
// the step repeats over the same tail). Stops at the first period that explains every call.
Tail longest_repeating_tail(const std::vector<TimedCall>& c) {
  const std::uint64_t n = c.size();
  Tail best;
  const std::uint64_t max_period = std::min<std::uint64_t>(kMaxStepCalls, n / kMinSteadySteps);
  for (std::uint64_t p = 1; p <= max_period; ++p) {
    std::uint64_t i = n - 1;
    while (i >= p && c[i].shape == c[i - p].shape) --i;
    const std::uint64_t length = (i >= p ? n - 1 - i : n - p) + p;
    if (length > best.length) best = {p, length};
    if (length == n) break;
  }
  return best;
}

// The durations of the tail's consecutive `period`s, the last period first.
std::vector<double> period_durations(const std::vector<TimedCall>& c, std::uint64_t period, std::uint64_t tail_length) {
  const std::uint64_t n = c.size(), periods = tail_length / period;
  std::vector<double> d;
  for (std::uint64_t j = 0; j + 1 < periods; ++j) {
    const std::uint64_t end = n - 1 - j * period, begin = end - period;
    d.push_back(static_cast<double>(c[end].issue_ns) - static_cast<double>(c[begin].issue_ns));
  }
  return d;
}

double median_of(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

// Whether the durations repeat a pattern `m` periods long: the medians of the m phases differ
// by more than kPatternStrength of their mean, and each phase's durations agree with its
// median. A busy host stretches random periods (a preempted process); those land in every
// phase alike, so they neither make a pattern nor hide one that most steps show.
bool repeats_pattern_of(const std::vector<double>& d, std::uint64_t m) {
  std::vector<std::vector<double>> phases(m);
  for (std::size_t j = 0; j < d.size(); ++j) phases[j % m].push_back(d[j]);
  std::vector<double> medians;
  for (const auto& phase : phases) medians.push_back(median_of(phase));
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
// after a gap (optimizer, next forward), so the durations of the shortest period follow a
// pattern as long as the step: the step is the shortest period times the smallest such
// pattern; the shortest period when there is none. Uneven durations alone are no pattern.
std::uint64_t pattern_multiple(const std::vector<TimedCall>& c, const Tail& tail) {
  const std::vector<double> d = period_durations(c, tail.period, tail.length);
  for (std::uint64_t m = 2; m <= kMaxPeriodMultiple; ++m) {
    if (m * tail.period > kMaxStepCalls || d.size() < kMinPhaseSamples * m) break;
    if (repeats_pattern_of(d, m)) return m * tail.period;
  }
  return tail.period;
}

}  // namespace

std::optional<StepCadence> find_cadence(const CadenceInput& in) {
  if (!in.calls || in.calls->empty() || in.total_calls < in.calls->size()) return std::nullopt;
  const std::vector<TimedCall>& c = *in.calls;
  const std::uint64_t n = c.size();
  Tail tail;
  std::uint64_t min_steps = kMinSteadySteps;
  if (in.steps) {
    // Rounded down: start-up calls fewer than the steps leave the period as it is.
    if (*in.steps == 0 || in.total_calls < *in.steps) return std::nullopt;
    tail.period = in.total_calls / *in.steps;
    tail.length = n / tail.period * tail.period;
    min_steps = 2;  // the job said how many steps it runs: one warm-up step and one timed
  } else {
    tail = longest_repeating_tail(c);
    if (tail.period > 0) tail.period = pattern_multiple(c, tail);
  }
  if (tail.period == 0 || tail.period > kMaxStepCalls) return std::nullopt;
  const std::uint64_t steady_steps = tail.length / tail.period;
  if (steady_steps < min_steps) return std::nullopt;

  StepCadence out;
  out.calls_per_step = tail.period;
  const bool whole_job_seen = in.total_calls == n;  // the start-up is in view: it is no step
  out.steps = in.steps ? static_cast<double>(*in.steps)
              : whole_job_seen ? static_cast<double>(steady_steps)
                               : static_cast<double>(in.total_calls) / static_cast<double>(tail.period);
  const std::uint64_t warm_up = 1 + (steady_steps - 1) / 10;
  out.timed_steps = steady_steps - warm_up;
  // Step k from the end spans the calls after index n-1-(k+1)*period up to n-1-k*period.
  const std::uint64_t first = n - 1 - out.timed_steps * tail.period;
  const std::uint64_t last = n - 1;
  if (c[last].issue_ns < c[first].issue_ns) return std::nullopt;  // a clock that went back: no timing
  out.step_ms = static_cast<double>(c[last].issue_ns - c[first].issue_ns) / 1e6 / static_cast<double>(out.timed_steps);
  return out;
}

}  // namespace cctune::workload
