#include "workload/step_reasons.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

namespace cctune::workload::step_reasons {
namespace {

constexpr const char* kFixToldSteps = "pass the steps the job runs (--steps N, CCTUNE_WORKLOAD_STEPS), or leave --steps out";

std::string num(std::uint64_t v) { return std::to_string(v); }

std::string shape_of(const CadenceInput& in, std::uint64_t i) {
  const std::uint32_t id = (*in.calls)[i].shape;
  return in.shape_name ? in.shape_name(id) : "shape " + num(id);
}

// 1-based, over every call the communicator issued (the calls held are its last ones).
std::string call_number(const CadenceInput& in, std::uint64_t i) { return num(in.total_calls - in.calls->size() + i + 1); }

std::string calls_span(const CadenceInput& in, std::uint64_t begin, std::uint64_t end) {
  return "calls " + call_number(in, begin) + " to " + call_number(in, end - 1) + " of " + num(in.total_calls);
}

std::string times(std::uint64_t k) { return k == 1 ? "once" : k == 2 ? "twice" : num(k) + " times"; }

}  // namespace

NoStep no_calls() { return {"it issued no calls", "run the job's steps"}; }

NoStep no_repeat(const CadenceInput& in, const std::vector<std::uint32_t>& s) {
  const std::uint64_t n = s.size();
  // Only where nothing shorter repeats: a longer step is looked for to say so, not to time it.
  for (std::uint64_t p = kMaxStepCalls + 1; 2 * p <= n; ++p)
    if (const step_search::Run r = step_search::longest_run_of(s, p, 0, n); r.repeats() >= 2)
      return {"its calls repeat every " + num(p) + " calls (" + calls_span(in, r.begin, r.end) + "), a step longer than the " +
                  num(kMaxStepCalls) + " calls looked for",
              "pass --steps N with the steps the job runs"};
  std::vector<std::uint32_t> distinct = s;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  std::string last;
  for (std::uint64_t i = n - std::min<std::uint64_t>(n, 3); i < n; ++i) last += (last.empty() ? "" : ", ") + shape_of(in, i);
  return {"its last " + num(n) + " calls repeat no sequence of up to " + num(std::min(kMaxStepCalls, std::max<std::uint64_t>(1, n / 2))) +
              " calls: they hold " + num(distinct.size()) + " different shapes (the last: " + last + ")",
          "run the job for more steps (3 or more after its start-up); if its calls change from step to step (sizes that follow the "
          "data), pass --steps N with the steps it runs"};
}

NoStep too_few_steps(const CadenceInput& in, const std::vector<std::uint32_t>& s, const Reading& rd, std::uint64_t steps) {
  const step_search::Region& r = rd.region;
  const std::uint64_t calls = r.period * rd.units_per_step;
  std::string reason = "its calls repeat a step of " + num(calls) + (calls == 1 ? " call" : " calls") + " only " + times(steps) + " (" +
                       calls_span(in, r.begin(), r.end()) + ")";
  // Where the repetition stopped, unless the calls simply ended (a partial step is no break).
  const std::uint64_t partial = step_search::partial_unit_after(s, r), at = r.end() + partial;
  if (at < s.size())
    reason +=
        "; then call " + call_number(in, at) + " is " + shape_of(in, at) + " where the step has " + shape_of(in, r.starts.back() + partial);
  return {reason + (in.steps ? "; 2 steps are needed"
                             : "; " + num(kMinSteadySteps) + " steps and " + num(kMinRepeatedCalls) + " calls after the first are needed"),
          in.steps ? "run the job for more steps"
                   : "run the job for more steps (3 or more after its start-up), or pass --steps N with the steps it runs"};
}

NoStep clock_went_back(const CadenceInput& in, std::uint64_t from_call, std::uint64_t to_call) {
  return {"its issue times go back between calls " + call_number(in, from_call) + " and " + call_number(in, to_call),
          "run the job again: the host's monotonic clock stepped back"};
}

NoStep more_steps_than_calls(const CadenceInput& in) {
  if (*in.steps == 0) return {"--steps 0 is no number of steps", kFixToldSteps};
  return {"--steps " + num(*in.steps) + " is more than the " + num(in.total_calls) + " calls it issued", kFixToldSteps};
}

NoStep steps_disagree(const CadenceInput& in, const step_search::Region& repeating) {
  char per_step[32];
  std::snprintf(per_step, sizeof per_step, "%.2f", static_cast<double>(in.total_calls) / static_cast<double>(*in.steps));
  return {"--steps " + num(*in.steps) + " does not fit its calls: they repeat every " + num(repeating.period) + " calls, " +
              num(repeating.units()) + " times (" + calls_span(in, repeating.begin(), repeating.end()) + "), and " + num(in.total_calls) +
              " calls in " + num(*in.steps) + " steps are " + per_step + " calls a step",
          kFixToldSteps};
}

NoStep steps_not_close(const CadenceInput& in, std::uint64_t period, std::uint64_t left) {
  return {"--steps " + num(*in.steps) + " does not fit its " + num(in.total_calls) + " calls: steps of " + num(period) + " calls leave " +
              num(left) + " calls over",
          kFixToldSteps};
}

NoStep told_step_too_long(const CadenceInput& in, const Reading& rd) {
  return {"--steps " + num(*in.steps) + " makes steps of " + num(rd.region.period * rd.units_per_step) + " calls, more than the " +
              num(kMaxStepCalls) + " a step may have",
          kFixToldSteps};
}

}  // namespace cctune::workload::step_reasons
