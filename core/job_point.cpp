#include "core/job_point.hpp"

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/json_fields.hpp"

namespace cctune {

void to_json(nlohmann::json& j, const JobPoint& p) {
  j = {{"collective", to_string(p.collective)}, {"dtype", to_string(p.dtype)}, {"size_bytes", p.size_bytes}};
  if (p.nranks <= 0) return;  // a plan's call shape
  j.update({{"nranks", p.nranks},
            {"nnodes", p.nnodes},
            {"calls_per_step", p.calls_per_step},
            {"time_us_per_step", p.time_us_per_step},
            {"time_estimated", p.time_estimated},
            {"shapes", p.shapes}});
}

JobPoint read_job_point(const JsonFields& in) {
  JobPoint p;
  p.collective = in.get_parsed("collective", parse_collective, "a collective");
  const bool weighted = in.has("nranks");
  if (weighted) {
    p.nranks = in.get<int>("nranks");
    p.nnodes = in.get<int>("nnodes");
  }
  p.size_bytes = in.get<std::uint64_t>("size_bytes");
  if (weighted) p.calls_per_step = in.get<double>("calls_per_step");
  if (in.get_optional<std::string>("dtype")) p.dtype = in.get_parsed("dtype", parse_dtype, "a data type");
  if (!weighted) return p;
  p.time_us_per_step = in.get_optional<double>("time_us_per_step").value_or(0);
  p.time_estimated = in.get_optional<bool>("time_estimated").value_or(false);
  p.shapes = in.get_optional<std::uint64_t>("shapes").value_or(0);
  if (!(p.calls_per_step >= 0) || p.calls_per_step > 1e12) throw UsageError(in.path("calls_per_step") + " is not a call count", in.fix());
  if (!(p.time_us_per_step >= 0) || p.time_us_per_step > 1e15) throw UsageError(in.path("time_us_per_step") + " is not a time", in.fix());
  return p;
}

void from_json(const nlohmann::json& j, JobPoint& p) {
  p = read_job_point(JsonFields(j, "job point",
                                "write the point as cctune does: collective, dtype, size_bytes (and nranks, nnodes, "
                                "calls_per_step for a job's point)"));
}

}  // namespace cctune
