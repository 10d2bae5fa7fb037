#include "app/sweep/workload_dry_run.hpp"

#include <algorithm>
#include <cstdio>

#include "app/sweep/space_sweep.hpp"
#include "core/text.hpp"
#include "runtime/worker_plan.hpp"
#include "tuner/space/plan.hpp"

namespace cctune::app {
namespace {

std::string shape_text(const workload::CallShape& s) {
  return s.kind == workload::CallKind::Collective ? to_string(s.collective) : workload::to_string(s.kind);
}

std::string sweep_estimate(const SweepPlan& sweep, int nranks, std::size_t job_points);

}  // namespace

std::string format_workload_plan(const LoadedWorkload& w, JobShape job, const workload::WorkloadPlan& plan, const SweepPlan* sweep) {
  std::string out;
  char line[512];
  const char* per = plan.per_step ? "step" : "capture";
  std::snprintf(line, sizeof line, "# workload %s (sha256 %.12s): planned for %d ranks on %d NCCL nodes\n",
                text::terminal_text(w.path).c_str(), w.sha256.c_str(), job.nranks, job.nnodes);
  out += line;
  std::snprintf(line, sizeof line, "%-14s %-10s %14s %12s %16s  %s\n", "collective", "dtype", "size_bytes", "calls/step", "time_us/step",
                "shapes");
  out += line;
  double total_us = 0;
  for (const auto& p : plan.points) {
    std::snprintf(line, sizeof line, "%-14s %-10s %14llu %12.3f %16.1f%s  %zu\n", to_string(p.collective).c_str(),
                  to_string(p.dtype).c_str(), static_cast<unsigned long long>(p.size_bytes), p.calls_per_step, p.time_us_per_step,
                  p.time_estimated ? " (est)" : "", p.shapes);
    out += line;
    total_us += p.time_us_per_step;
  }
  std::snprintf(line, sizeof line, "# the job's collective time per %s here: %.3f ms%s\n", per, total_us / 1000.0,
                std::any_of(plan.points.begin(), plan.points.end(), [](const auto& p) { return p.time_estimated; })
                    ? " ((est): no duration in the capture, estimated from the size)"
                    : "");
  out += line;
  if (plan.bucketed) {
    std::snprintf(line, sizeof line,
                  "# %zu distinct sizes bucketed into %zu, each collective's on their own (log-spaced; each at its time-weighted median)\n",
                  plan.distinct_sizes, plan.points.size());
    out += line;
  }
  for (const auto& note : plan.notes) out += "# note: " + text::terminal_text(note) + "\n";
  for (const auto& u : plan.unplanned) {
    std::snprintf(line, sizeof line,
                  "# not here: communicator %s, %d ranks x %d nodes, %s %llu bytes: ", text::terminal_text(u.comm_id).c_str(), u.nranks,
                  u.nnodes, shape_text(u.shape).c_str(), static_cast<unsigned long long>(u.shape.bytes));
    out += line + text::terminal_text(u.reason) + "\n";
  }
  if (sweep) out += sweep_estimate(*sweep, job.nranks, plan.points.size());
  return out;
}

namespace {
std::string sweep_estimate(const SweepPlan& sweep, int nranks, std::size_t job_points) {
  // The job's shapes x ops x roots x placements x configs x groups: exactly the points the
  // sweep measures (enumerate_points is what both backends walk).
  char line[256];
  const auto specs = runtime::enumerate_points(sweep, std::max(nranks, 1));
  const std::size_t per_group = specs.size();
  const std::size_t groups = sweep.backend == BackendChoice::Nccl ? std::max<std::size_t>(sweep.nccl.groups.size(), 1) : 1;
  const tuner::EstimateModel model;
  double seconds = sweep.backend == BackendChoice::Nccl ? model.group_startup_s * static_cast<double>(groups) : 0;
  const tuner::MeasureSpec measure = plan_dimensions(sweep).measure;  // as the space's estimate reads the plan
  for (const auto& spec : specs) seconds += static_cast<double>(groups) * model.point_seconds(measure, spec.bytes.size_bytes);
  std::snprintf(line, sizeof line, "# sweep: %zu points (%zu per config group x %zu groups) for the job's %zu shapes; estimated %.0f s\n",
                per_group * groups, per_group, groups, job_points, seconds);
  return line;
}
}  // namespace

}  // namespace cctune::app
