#include "workload/replay_plan.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>
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

std::string call_text(const CallShape& s) { return shape_name(s) + " (" + std::to_string(s.count) + " elements)"; }

std::string group_name(const CallGroup& g) {
  return "group of " + std::to_string(g.members.size()) + " starting with " + shape_name(g.members.front());
}

// `calls` over `steps`, rounded to the nearest; 0 (fewer than half the steps) is left out.
// Both, and rounding, are noted: `what` names the calls, `per_step_unit` what was counted.
std::uint64_t repeats_per_step(std::uint64_t calls, double steps, const std::string& what, const std::string& per_step_unit,
                               std::vector<std::string>& notes) {
  const double per_step = static_cast<double>(calls) / steps;
  // A tiny step count in a file must not overflow the cast; the caller refuses huge counts.
  const auto repeats = static_cast<std::uint64_t>(std::round(std::min(per_step, 1e18)));
  if (repeats == 0) {
    notes.push_back(what + " left out: " + fmt::format("{:.2f}", per_step) + " " + per_step_unit + " (start-up or occasional calls)");
  } else if (std::abs(per_step - static_cast<double>(repeats)) > 1e-9) {
    notes.push_back(what + ": " + fmt::format("{:.2f}", per_step) + " " + per_step_unit + ", replayed " + std::to_string(repeats) + " per step");
  }
  return repeats;
}

// A communicator's collective shapes and the calls of each that no group has taken yet.
// Members keep the caller's view while profiler shapes keep NCCL's tasks' (int8 for data that
// is not reduced): what NCCL moves, kind, collective, root and bytes, is what must agree.
class ShapePool {
 public:
  explicit ShapePool(std::vector<const CallStats*> shapes) : shapes_(std::move(shapes)) {
    for (std::size_t i = 0; i < shapes_.size(); ++i) {
      left_.push_back(shapes_[i]->calls);
      by_task_[task_key(shapes_[i]->shape)].push_back(i);
    }
  }
  // The shapes that stand for `m`, best first: the equal shape, then those of its dtype.
  std::vector<std::size_t> candidates(const CallShape& m) const {
    const auto it = by_task_.find(task_key(m));
    if (it == by_task_.end()) return {};
    std::vector<std::size_t> out = it->second;
    const auto rank = [&](std::size_t i) { return shapes_[i]->shape == m ? 0 : shapes_[i]->shape.dtype == m.dtype ? 1 : 2; };
    std::stable_sort(out.begin(), out.end(), [&](std::size_t a, std::size_t b) { return rank(a) < rank(b); });
    return out;
  }
  // Takes `calls` of `m` from its candidates, best first; returns how many none had left.
  std::uint64_t take(const CallShape& m, std::uint64_t calls) {
    for (std::size_t i : candidates(m)) {
      const std::uint64_t n = std::min(left_[i], calls);
      left_[i] -= n, calls -= n;
    }
    return calls;
  }
  std::size_t size() const { return shapes_.size(); }
  const CallStats& stats(std::size_t i) const { return *shapes_[i]; }
  std::uint64_t left(std::size_t i) const { return left_[i]; }

 private:
  using TaskKey = std::tuple<Collective, std::optional<int>, std::uint64_t>;
  static TaskKey task_key(const CallShape& s) { return {s.collective, s.root, s.bytes}; }
  std::vector<const CallStats*> shapes_;
  std::vector<std::uint64_t> left_;
  std::map<TaskKey, std::vector<std::size_t>> by_task_;
};

// One entry of a communicator's step before it is ordered: a shape issued alone, or a group.
struct Entry {
  std::uint64_t position = 0;  // first_call (shape order where none is recorded)
  bool grouped = false;
  std::vector<CapturedCall> calls;
};

// The communicator's collective-only groups, each at its earliest member's position, their
// calls taken from the pool; groups with sends or receives are left out, their shapes kept.
void add_groups(const Communicator& c, double steps, ShapePool& pool, const std::vector<std::uint64_t>& position,
                std::vector<Entry>& entries, std::vector<std::string>& notes) {
  for (const CallGroup& g : c.groups) {
    if (g.members.empty()) continue;  // the JSON reader refuses such groups; a built Workload has none
    const std::string what = group_name(g) + " on " + c.id;
    if (g.has_p2p()) {
      const bool collectives = std::any_of(g.members.begin(), g.members.end(), [](const CallShape& m) { return m.kind == CallKind::Collective; });
      notes.push_back(what + " left out: it holds sends or receives, which are not replayed" +
                      (collectives ? " (its collectives are issued alone)" : ""));
      continue;
    }
    Entry e{std::numeric_limits<std::uint64_t>::max(), true, {}};
    std::uint64_t unmatched = 0;
    for (const CallShape& m : g.members) {
      if (const auto found = pool.candidates(m); !found.empty()) e.position = std::min(e.position, position[found.front()]);
      unmatched += pool.take(m, g.calls);
    }
    if (unmatched > 0)
      notes.push_back(what + ": " + std::to_string(unmatched) +
                      " of its member calls are not among the communicator's call shapes (an edited file, or AlltoAll recorded as send/recv)");
    const std::uint64_t repeats = repeats_per_step(g.calls, steps, what, "times per step", notes);
    if (repeats == 0) continue;
    for (const CallShape& m : g.members) e.calls.push_back({c.id, m, repeats, 0});
    entries.push_back(std::move(e));
  }
}

void plan_communicator(const Communicator& c, double steps, ReplayStep& step) {
  std::vector<const CallStats*> shapes;
  for (const CallStats& s : c.calls) {
    if (s.shape.kind != CallKind::Collective) {
      step.notes.push_back(shape_name(s.shape) + " on " + c.id + " left out: point-to-point calls are not replayed");
      continue;
    }
    shapes.push_back(&s);
  }
  const bool ordered = all_ordered(c);
  if (!ordered) step.capture_order = false;
  std::vector<std::uint64_t> position;
  for (std::size_t i = 0; i < shapes.size(); ++i) position.push_back(ordered ? *shapes[i]->first_call : i);
  ShapePool pool(shapes);
  std::vector<Entry> entries;
  add_groups(c, steps, pool, position, entries, step.notes);
  std::vector<std::size_t> order(shapes.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return position[a] < position[b]; });
  for (std::size_t i : order) {
    const bool in_groups = pool.left(i) != pool.stats(i).calls;
    if (in_groups && pool.left(i) == 0) continue;  // every call of it is a group's
    const CallShape& s = pool.stats(i).shape;
    const std::uint64_t repeats =
        repeats_per_step(pool.left(i), steps, shape_name(s) + " on " + c.id, in_groups ? "calls per step outside groups" : "calls per step", step.notes);
    if (repeats > 0) entries.push_back({position[i], false, {{c.id, s, repeats, -1}}});
  }
  // A group goes before the lone calls of the shape it starts at: which came first is unknown.
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.position != b.position ? a.position < b.position : a.grouped && !b.grouped;
  });
  for (Entry& e : entries) {
    for (CapturedCall& call : e.calls) {
      if (e.grouped) call.group = step.groups;
      step.calls.push_back(std::move(call));
    }
    if (e.grouped) ++step.groups;
  }
}

}  // namespace

std::size_t ReplayStep::largest() const {
  std::size_t out = 0;
  for (std::size_t i = 1; i < calls.size(); ++i)
    if (calls[i].shape.bytes > calls[out].shape.bytes) out = i;
  return out;
}

PointStep ReplayStep::issued() const {
  PointStep out;
  for (const CapturedCall& c : calls)
    out.calls.push_back({c.shape.collective, c.shape.dtype, c.shape.op.value_or(ReduceOp::Sum), c.shape.root.value_or(0), c.shape.count,
                         static_cast<int>(c.repeats), c.group});
  if (calls.empty()) return out;
  const CallShape& largest = calls[this->largest()].shape;
  out.largest = {largest.collective, largest.dtype, std::max<std::uint64_t>(largest.bytes, 1)};
  return out;
}

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
    plan_communicator(c, *w.steps, step);
  }
  if (step.calls.empty())
    throw UsageError("no communicator of the workload has " + std::to_string(nranks) + " ranks and a collective to replay",
                     "run replay with as many ranks as the captured job's communicator");
  if (!step.capture_order)
    step.notes.push_back("the workload records no call order (written before first_call): calls are in shape order, not the job's");
  return step;
}

std::string format_replay(const ReplayStep& step) {
  std::string lines;
  std::size_t alone = 0;
  for (std::size_t i = 0; i < step.calls.size();) {
    const CapturedCall& c = step.calls[i];
    std::size_t end = i + 1;
    while (c.group >= 0 && end < step.calls.size() && step.calls[end].group == c.group) ++end;
    lines += "  " + std::to_string(c.repeats) + " x ";
    if (c.group < 0) {
      ++alone;
      lines += call_text(c.shape);
    } else {
      lines += "group of " + std::to_string(end - i) + ":";
      for (std::size_t k = i; k < end; ++k) lines += (k == i ? " " : ", ") + call_text(step.calls[k].shape);
    }
    lines += " on " + c.communicator + "\n";
    i = end;
  }
  std::string out = "# replay: one step on " + std::to_string(step.nranks) + " ranks, " + std::to_string(alone) + " call shapes";
  if (step.groups > 0) out += " and " + std::to_string(step.groups) + (step.groups == 1 ? " group" : " groups");
  out += std::string(", ") + (step.capture_order ? "in capture order" : "in shape order") + "\n" + lines;
  for (const std::string& n : step.notes) out += "# note: " + n + "\n";
  return out;
}

}  // namespace cctune::workload
