#include "workload/replay_plan.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "core/error.hpp"
#include "core/units.hpp"

namespace cctune::workload {
namespace {

// The order of a step within a communicator: capture order where every shape has it, else the
// shapes' own order (kind, collective, dtype, ...), which is stable but not the job's.
bool all_ordered(const Communicator& c) {
  return std::all_of(c.calls.begin(), c.calls.end(), [](const CallStats& s) { return s.first_call.has_value(); });
}

std::string shape_name(const CallShape& s) {
  std::string t = s.kind == CallKind::Collective ? to_string(s.collective) : to_string(s.kind);
  t += " " + to_string(s.dtype);
  if (s.op) t += " " + to_string(*s.op);
  if (s.root) t += " root " + std::to_string(*s.root);
  return t + " " + format_size(s.bytes);
}

}  // namespace

ReplayStep plan_replay(const Workload& w, int nranks) {
  if (!w.steps || !(*w.steps > 0))
    throw UsageError("the workload has no step count, so one step's calls are unknown",
                     "import the capture again with --steps N (the training steps it covers)");
  ReplayStep step;
  step.nranks = nranks;
  step.capture_order = true;
  for (const Communicator& c : w.communicators) {
    if (c.nranks != nranks) {
      step.notes.push_back("communicator " + c.id + " (" + std::to_string(c.nranks) + " ranks) left out: this job has " +
                           std::to_string(nranks));
      continue;
    }
    std::vector<const CallStats*> calls;
    for (const CallStats& s : c.calls) {
      if (s.shape.kind != CallKind::Collective) {
        step.notes.push_back(shape_name(s.shape) + " on " + c.id + " left out: point-to-point calls are not replayed");
        continue;
      }
      calls.push_back(&s);
    }
    if (all_ordered(c))
      std::stable_sort(calls.begin(), calls.end(), [](const CallStats* a, const CallStats* b) { return *a->first_call < *b->first_call; });
    else
      step.capture_order = false;
    for (const CallStats* s : calls) {
      const double per_step = static_cast<double>(s->calls) / *w.steps;
      const auto repeats = static_cast<std::uint64_t>(std::round(per_step));
      if (repeats == 0) {
        step.notes.push_back(shape_name(s->shape) + " on " + c.id + " left out: " + fmt::format("{:.2f}", per_step) +
                             " calls per step (start-up or occasional calls)");
        continue;
      }
      if (std::abs(per_step - static_cast<double>(repeats)) > 1e-9)
        step.notes.push_back(shape_name(s->shape) + " on " + c.id + ": " + fmt::format("{:.2f}", per_step) + " calls per step, replayed " +
                             std::to_string(repeats) + " per step");
      step.calls.push_back({c.id, s->shape, repeats});
    }
  }
  if (step.calls.empty())
    throw UsageError("no communicator of the workload has " + std::to_string(nranks) + " ranks and a collective to replay",
                     "run replay with as many ranks as the captured job's communicator");
  if (!step.capture_order)
    step.notes.push_back("the workload records no call order (written before first_call): calls are in shape order, not the job's");
  return step;
}

std::string format_replay(const ReplayStep& step) {
  std::string out = "# replay: one step on " + std::to_string(step.nranks) + " ranks, " + std::to_string(step.calls.size()) +
                    " call shapes, " + (step.capture_order ? "in capture order" : "in shape order") + "\n";
  for (const ReplayCall& c : step.calls)
    out += "  " + std::to_string(c.repeats) + " x " + shape_name(c.shape) + " (" + std::to_string(c.shape.count) + " elements) on " +
           c.communicator + "\n";
  for (const std::string& n : step.notes) out += "# note: " + n + "\n";
  return out;
}

}  // namespace cctune::workload
