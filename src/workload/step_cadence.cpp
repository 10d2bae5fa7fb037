#include "workload/step_cadence.hpp"

#include <algorithm>
#include <limits>

namespace cctune::workload {
namespace {

constexpr std::uint64_t kMaxPeriodMultiple = 64;
constexpr double kEvenSpread = 0.5;  // (p90 - p10) / median of a step's durations: even

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

// How uneven the durations of consecutive `period`s of the tail are: (p90 - p10) / median, so
// a few warm-up periods do not count; infinity with too few periods to tell.
double spread_of_periods(const std::vector<TimedCall>& c, std::uint64_t period, std::uint64_t tail_length) {
  const std::uint64_t n = c.size(), periods = tail_length / period;
  if (periods < kMinSteadySteps + 1) return std::numeric_limits<double>::infinity();
  std::vector<double> d;
  for (std::uint64_t j = 0; j + 1 < periods; ++j) {
    const std::uint64_t end = n - 1 - j * period, begin = end - period;
    d.push_back(static_cast<double>(c[end].issue_ns) - static_cast<double>(c[begin].issue_ns));
  }
  std::sort(d.begin(), d.end());
  const double median = d[d.size() / 2];
  if (!(median > 0)) return std::numeric_limits<double>::infinity();
  return (d[d.size() * 9 / 10] - d[d.size() / 10]) / median;
}

// A step that issues one shape several times (DDP's equal gradient buckets) repeats already
// after a part of it. Its calls come close together (the backward pass) and the step ends
// after a gap (optimizer, next forward), so a part-step's durations alternate short and long
// while a whole step's are even: the step is the smallest multiple of the shortest period whose
// durations are even; the shortest period when none is.
std::uint64_t even_multiple(const std::vector<TimedCall>& c, const Tail& tail) {
  for (std::uint64_t k = 1; k <= kMaxPeriodMultiple; ++k) {
    const std::uint64_t p = k * tail.period;
    if (p > kMaxStepCalls || tail.length / p < kMinSteadySteps + 1) break;
    if (spread_of_periods(c, p, tail.length) <= kEvenSpread) return p;
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
    if (tail.period > 0) tail.period = even_multiple(c, tail);
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
