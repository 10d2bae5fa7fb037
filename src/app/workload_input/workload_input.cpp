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
#include "core/text.hpp"
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
  const nlohmann::json shared = broadcast_json(comm, {{"text", text}}, 0);
  LoadedWorkload out;
  agree_on_errors(comm, [&] { out = parse_workload(path, shared.at("text").get<std::string>(), argument); });
  return out;
}

void apply_workload(const workload::WorkloadPlan& plan, PlanOverrides& overrides) {
  overrides.collectives = plan.collectives();
  SizeSequence sizes;
  sizes.list = plan.sizes();
  overrides.sizes = sizes;
  overrides.dtypes = plan.dtypes();
  overrides.job_shapes.clear();
  for (const auto& p : plan.points) overrides.job_shapes.push_back({p.collective, p.dtype, p.size_bytes});
}

nlohmann::json workload_settings(const LoadedWorkload& w, JobShape job, const workload::WorkloadPlan& plan) {
  nlohmann::json points = nlohmann::json::array();
  for (const auto& p : plan.points)
    points.push_back({{"collective", to_string(p.collective)},
                      {"dtype", to_string(p.dtype)},
                      {"nranks", p.nranks},
                      {"nnodes", p.nnodes},
                      {"size_bytes", p.size_bytes},
                      {"calls_per_step", p.calls_per_step},
                      {"time_us_per_step", p.time_us_per_step},
                      {"time_estimated", p.time_estimated},
                      {"shapes", p.shapes}});
  nlohmann::json out = {{"path", w.path},
                        {"sha256", w.sha256},
                        {"nranks", job.nranks},
                        {"nnodes", job.nnodes},
                        {"per_step", plan.per_step},
                        {"bucketed", plan.bucketed},
                        {"points", points},
                        {"unplanned", plan.unplanned.size()}};
  if (plan.step_us > 0) out["step_us"] = plan.step_us;  // only when the capture timed its steps
  return out;
}

std::vector<JobPoint> job_weights_of(const workload::WorkloadPlan& plan) { return plan.points; }

namespace {

// One recorded point as tune weighs it: every field workload_settings writes.
JobPoint recorded_weight(const JsonFields& p, const std::string& fix) {
  JobPoint jw;
  const std::string collective = p.get<std::string>("collective");
  try {
    jw.collective = parse_collective(collective);
  } catch (const UsageError&) {
    throw UsageError(p.path("collective") + " \"" + text::terminal_text(collective) + "\" is not a collective", fix);
  }
  jw.nranks = p.get<int>("nranks");
  jw.nnodes = p.get<int>("nnodes");
  jw.size_bytes = p.get<std::uint64_t>("size_bytes");
  jw.calls_per_step = p.get<double>("calls_per_step");
  // Records written before the data type was kept weigh as float32, the sweep's default type.
  if (const auto dtype = p.get_optional<std::string>("dtype")) {
    try {
      jw.dtype = parse_dtype(*dtype);
    } catch (const UsageError&) {
      throw UsageError(p.path("dtype") + " \"" + text::terminal_text(*dtype) + "\" is not a data type", fix);
    }
  }
  jw.time_us_per_step = p.get_optional<double>("time_us_per_step").value_or(0);
  jw.time_estimated = p.get_optional<bool>("time_estimated").value_or(false);
  jw.shapes = p.get_optional<std::uint64_t>("shapes").value_or(0);
  if (!(jw.calls_per_step >= 0) || jw.calls_per_step > 1e12) throw UsageError(p.path("calls_per_step") + " is not a call count", fix);
  if (!(jw.time_us_per_step >= 0) || jw.time_us_per_step > 1e15) throw UsageError(p.path("time_us_per_step") + " is not a time", fix);
  return jw;
}

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
  for (std::size_t i = 0; i < points.size(); ++i) out.weights.push_back(recorded_weight(w.element("points", i), fix));
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
