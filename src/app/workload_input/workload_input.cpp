#include "app/workload_input/workload_input.hpp"

#include "app/workload_input/workload_files.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "comm/rank_agreement.hpp"
#include "comm/rank_comm_typed.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/json_fields.hpp"
#include "core/sha256.hpp"
#include "workload/workload_json.hpp"

namespace cctune::app {
namespace {

// A record in results is ours, but results files travel: bound what tune trusts.
constexpr std::size_t max_recorded_points = 100000;

// Through the one guarded reader of workload files (app/workload_input/workload_files.hpp): depth, value
// budget, then the typed checks of workload_from_json. Errors name the file as it was given.
LoadedWorkload parse_workload(const std::string& path, const std::string& text, const std::string& argument) {
  const std::string source = argument.empty() ? path : argument + " " + path;
  const nlohmann::json j = parse_workload_doc(text, source, WorkloadDoc::Workload);
  LoadedWorkload out{path, sha256_hex(text), workload_of(j, source)};
  return out;
}

}  // namespace

LoadedWorkload load_workload(const std::string& path, const std::string& argument) {
  return parse_workload(path, read_file(path, max_workload_doc_bytes), argument);
}

LoadedWorkload load_workload_on_rank0(Session& session, const std::string& path, const std::string& argument) {
  RankComm& comm = session.comm();
  std::string text;
  agree_on_errors(comm, [&] {
    if (comm.rank() == 0) text = read_file(path, max_workload_doc_bytes);
  });
  const std::string shared = broadcast_as(comm, text, 0);
  LoadedWorkload out;
  agree_on_errors(comm, [&] { out = parse_workload(path, shared, argument); });
  return out;
}

void apply_workload(const workload::WorkloadPlan& plan, PlanOverrides& overrides) { overrides.shapes = plan.shapes(); }

nlohmann::json workload_settings(const LoadedWorkload& w, JobShape job, const workload::WorkloadPlan& plan) {
  nlohmann::json out = {{"path", w.path},
                        {"sha256", w.sha256},
                        {"nranks", job.nranks},
                        {"nnodes", job.nnodes},
                        {"per_step", plan.per_step},
                        {"bucketed", plan.bucketed},
                        {"points", plan.points},  // JobPoint's form with the weight (a job's points have nranks > 0)
                        {"unplanned", plan.unplanned.size()}};
  if (plan.step_us > 0) out["step_us"] = plan.step_us;  // only when the capture timed its steps
  return out;
}

std::vector<JobPoint> job_weights_of(const workload::WorkloadPlan& plan) { return plan.points; }

namespace {

std::optional<RecordedWorkload> read_workload(const nlohmann::json& settings) {
  if (settings.is_null()) return std::nullopt;  // a file written before settings were recorded
  const std::string fix = "re-run `cctune sweep --workload FILE`, or pass the file: cctune tune RESULTS --workload FILE";
  const JsonFields s(settings, "meta.settings", fix);
  if (!s.has("workload")) return std::nullopt;
  const JsonFields w = s.object("workload");
  const nlohmann::json& points = w.array("points");
  if (points.size() > max_recorded_points)
    throw UsageError("meta.settings.workload.points holds " + std::to_string(points.size()) + " points, above the limit of " +
                         std::to_string(max_recorded_points),
                     fix);
  RecordedWorkload out;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const JsonFields p = w.element("points", i);
    p.get<int>("nranks");  // a job's point, with its communicator and weight (JobPoint reads a bare call shape too)
    out.weights.push_back(read_job_point(p));
  }
  out.per_step = w.get_optional<bool>("per_step").value_or(true);
  out.step_us = w.get_optional<double>("step_us").value_or(0);
  if (!(out.step_us >= 0) || out.step_us > 1e12) throw UsageError("meta.settings.workload.step_us is not a time", fix);
  return out;
}

}  // namespace

const RecordedWorkload* recorded_workload_of(const Results& results) {
  const auto& recorded = results.meta.settings.get<std::optional<RecordedWorkload>>(read_workload);
  return recorded ? &*recorded : nullptr;
}

void seed_recorded_workload(ResultSection& settings, const workload::WorkloadPlan* plan) {
  std::optional<RecordedWorkload> recorded;
  if (plan) recorded = RecordedWorkload{job_weights_of(*plan), plan->per_step, plan->step_us};
  settings.seed(std::move(recorded));
}

}  // namespace cctune::app
