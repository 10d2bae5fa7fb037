#include "tuner/selection/job_time.hpp"

#include <cmath>
#include <algorithm>
#include <cstdio>

namespace cctune::tuner {

MappedWeights map_job_weights(const std::vector<JobPoint>& weights, const std::set<SizeKey>& measured) {
  MappedWeights out;
  std::map<ShapeKey, std::vector<std::uint64_t>> sizes_of;
  for (const auto& [shape, size] : measured) sizes_of[shape].push_back(size);
  std::size_t far = 0, unmeasured = 0;
  for (const JobPoint& w : weights) {
    const ShapeKey shape{w.collective, w.nranks, w.nnodes};
    auto it = sizes_of.find(shape);
    if (it == sizes_of.end() || w.size_bytes == 0) {
      ++unmeasured;
      continue;
    }
    std::uint64_t best = it->second.front();
    const double target = std::log(static_cast<double>(w.size_bytes));
    for (std::uint64_t s : it->second)
      if (std::abs(std::log(static_cast<double>(s)) - target) < std::abs(std::log(static_cast<double>(best)) - target)) best = s;
    // A size more than 12 % away (a grid's step is 2x) is another size: say so, still use it.
    if (std::abs(std::log(static_cast<double>(best)) - target) > std::log(1.12)) ++far;
    out.calls_per_step[{shape, best}] += w.calls_per_step;
  }
  if (far)
    out.notes.push_back(std::to_string(far) + " of the job's sizes were not measured as such; each is weighed at the nearest measured size "
                                              "(sweep with --workload to measure exactly them)");
  if (unmeasured)
    out.notes.push_back(std::to_string(unmeasured) + " of the job's (collective, ranks, nodes) shapes were not measured at all; their time is not counted");
  return out;
}

std::map<Collective, DType> job_dtypes(const std::vector<JobPoint>& weights) {
  std::map<Collective, std::map<DType, double>> calls;
  for (const JobPoint& w : weights) calls[w.collective][w.dtype] += w.calls_per_step;
  std::map<Collective, DType> out;
  for (const auto& [c, by_type] : calls)
    out[c] = std::max_element(by_type.begin(), by_type.end(), [](const auto& a, const auto& b) { return a.second < b.second; })->first;
  return out;
}

std::vector<JobTime> sum_job_time(const std::vector<JobTerm>& terms) {
  std::map<ShapeKey, JobTime> by_shape;
  std::map<ShapeKey, double> variance;
  for (const JobTerm& t : terms) {
    JobTime& j = by_shape[t.shape];
    j.shape = t.shape;
    j.default_us += t.calls_per_step * t.defaults.time_us;
    j.profile_us += t.calls_per_step * t.profile.time_us;
    const double a = t.calls_per_step * t.defaults.halfwidth_us, b = t.calls_per_step * t.profile.halfwidth_us;
    // Where the profile keeps NCCL's default, both sides are one measurement: no difference.
    variance[t.shape] += t.defaults.time_us == t.profile.time_us ? 0 : a * a + b * b;
    ++j.sizes;
  }
  std::vector<JobTime> out;
  for (auto& [shape, j] : by_shape) {
    j.halfwidth_us = std::sqrt(variance[shape]);
    out.push_back(j);
  }
  return out;
}

std::string format_job_time(const JobTime& t, bool per_step) {
  char buf[320];
  const double change = t.default_us > 0 ? (t.profile_us - t.default_us) / t.default_us * 100.0 : 0.0;
  const double interval = t.default_us > 0 ? t.halfwidth_us / t.default_us * 100.0 : 0.0;
  std::snprintf(buf, sizeof buf, "%s %d ranks x %d nodes: collective time per %s: NCCL defaults %.3f ms -> profile %.3f ms (%+.1f %% +/- %.1f %%)",
                to_string(t.shape.collective).c_str(), t.shape.nranks, t.shape.nnodes, per_step ? "step" : "capture", t.default_us / 1000.0,
                t.profile_us / 1000.0, change, interval);
  return buf;
}

}  // namespace cctune::tuner
