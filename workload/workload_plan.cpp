#include "workload/workload_plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "core/error.hpp"

namespace cctune::workload {
namespace {

// The dry run's rough model (tuner/space/plan.hpp EstimateModel): 10 us + bytes / 100 GB/s.
constexpr double model_latency_us = 10.0;
constexpr double model_bandwidth_bytes_per_us = 100e3;

struct Entry {
  Collective collective;
  DType dtype;
  std::uint64_t bytes;
  double calls_per_step;
  double time_us_per_step;
  bool estimated;
};

std::string why_not(const Communicator& c, const CallShape& s, JobShape job) {
  if (s.kind != CallKind::Collective)
    return "point-to-point " + to_string(s.kind) + ": a sweep measures collectives (its time is not weighed)";
  if (c.nranks != job.nranks)
    return std::to_string(c.nranks) + " ranks, and this job has " + std::to_string(job.nranks) + ": run cctune with " +
           std::to_string(c.nranks) + " ranks (one per GPU) to measure it";
  if (c.nnodes != 0 && c.nnodes != job.nnodes) {
    std::string fix = "run on " + std::to_string(c.nnodes) + " nodes";
    if (c.nnodes > job.nnodes && job.nnodes > 0 && c.nnodes % job.nnodes == 0)
      fix += ", or add --emulate-nodes " + std::to_string(c.nnodes / job.nnodes);
    return std::to_string(c.nnodes) + " nodes, and NCCL sees " + std::to_string(job.nnodes) + " here: " + fix;
  }
  return {};
}

// Why `s` is no part of the step (rare_shapes off), or empty.
std::string rare_reason(const CallStats& s, std::optional<double> steps) {
  if (!steps || *steps < kRareMinSteps || static_cast<double>(s.calls) >= kRareShareOfSteps * *steps) return {};
  char text[200];
  std::snprintf(text, sizeof text,
                "called %llu times in %.0f steps (under one in ten): start-up or occasional, no part of the step "
                "(--workload-rare-shapes measures it)",
                static_cast<unsigned long long>(s.calls), *steps);
  return text;
}

// The size whose cumulative time first reaches half the bucket's: the time-weighted median.
std::uint64_t weighted_median(std::vector<std::pair<std::uint64_t, double>> sizes) {
  std::sort(sizes.begin(), sizes.end());
  double total = 0;
  for (const auto& [b, t] : sizes) total += t;
  double seen = 0;
  for (const auto& [b, t] : sizes) {
    seen += t;
    if (seen >= total / 2) return b;
  }
  return sizes.back().first;
}

// Maps each distinct size of one collective to its bucket's representative (itself when no
// bucketing is needed).
std::map<std::uint64_t, std::uint64_t> bucket_sizes(const std::map<std::uint64_t, double>& time_at, std::size_t max_sizes) {
  std::map<std::uint64_t, std::uint64_t> to;
  if (time_at.size() <= max_sizes) {
    for (const auto& [b, t] : time_at) to[b] = b;
    return to;
  }
  const double lo = std::log(static_cast<double>(time_at.begin()->first));
  const double hi = std::log(static_cast<double>(time_at.rbegin()->first));
  const double width = (hi - lo) / static_cast<double>(max_sizes);
  std::map<std::size_t, std::vector<std::pair<std::uint64_t, double>>> buckets;
  for (const auto& [b, t] : time_at) {
    const auto i = static_cast<std::size_t>((std::log(static_cast<double>(b)) - lo) / width);
    buckets[std::min(i, max_sizes - 1)].emplace_back(b, t);
  }
  for (const auto& [i, members] : buckets) {
    const std::uint64_t rep = weighted_median(members);
    for (const auto& [b, t] : members) to[b] = rep;
  }
  return to;
}

// Each collective's sizes bucketed on their own: a bucket never stands one collective's calls
// at another's size (a 32 B allgather once planned at a 67 MB allreduce's size).
using BucketMap = std::map<Collective, std::map<std::uint64_t, std::uint64_t>>;
BucketMap bucket_per_collective(const std::vector<Entry>& entries, std::size_t max_sizes, WorkloadPlan& plan) {
  std::map<Collective, std::map<std::uint64_t, double>> time_at;
  for (const Entry& e : entries) time_at[e.collective][e.bytes] += e.time_us_per_step;
  BucketMap to;
  for (const auto& [c, sizes] : time_at) {
    plan.distinct_sizes += sizes.size();
    plan.bucketed = plan.bucketed || sizes.size() > max_sizes;
    to[c] = bucket_sizes(sizes, max_sizes);
  }
  return to;
}

}  // namespace

double estimated_call_us(std::uint64_t bytes) { return model_latency_us + static_cast<double>(bytes) / model_bandwidth_bytes_per_us; }

PointShapes WorkloadPlan::shapes() const {
  PointShapes out;
  for (const JobPoint& p : points) out.shapes.push_back({p.collective, p.dtype, p.size_bytes});  // the call shape, no weight
  return out;
}

WorkloadPlan plan_workload(const Workload& w, JobShape job, std::size_t max_sizes, bool rare_shapes) {
  if (max_sizes == 0) throw UsageError("the workload's size limit is 0", "plan at least one size (--workload-sizes 1 or more)");
  WorkloadPlan plan;
  plan.per_step = w.steps && *w.steps > 0;
  if (const Communicator* timed = busiest_with_cadence(w, /*timed=*/true); timed && plan.per_step)
    plan.step_us = timed->cadence->step_ms * 1e3;
  std::vector<Entry> entries;
  for (const Communicator& c : w.communicators) {
    bool unknown_nodes = false;
    for (const CallStats& s : c.calls) {
      if (std::string reason = why_not(c, s.shape, job); !reason.empty()) {
        plan.unplanned.push_back({c.id, c.nranks, c.nnodes, s.shape, std::move(reason)});
        continue;
      }
      if (std::string reason = rare_shapes ? std::string{} : rare_reason(s, w.steps); !reason.empty()) {
        plan.unplanned.push_back({c.id, c.nranks, c.nnodes, s.shape, std::move(reason)});
        continue;
      }
      unknown_nodes = unknown_nodes || c.nnodes == 0;
      const double per_call = s.durations.samples > 0 ? s.durations.sum_us / static_cast<double>(s.durations.samples)
                                                      : estimated_call_us(s.shape.bytes);
      const double cps = plan.per_step ? static_cast<double>(s.calls) / *w.steps : static_cast<double>(s.calls);
      entries.push_back({s.shape.collective, s.shape.dtype, std::max<std::uint64_t>(s.shape.bytes, 1), cps, cps * per_call,
                         s.durations.samples == 0});
    }
    if (unknown_nodes)
      plan.notes.push_back("communicator " + c.id + ": the capture does not say its node count; planned as this job's " +
                           std::to_string(job.nnodes));
  }
  if (entries.empty()) {
    std::string first = plan.unplanned.empty() ? "it holds no call" : plan.unplanned.front().reason;
    throw UsageError("no call shape of the workload can run on this allocation (" + std::to_string(job.nranks) + " ranks, " +
                         std::to_string(job.nnodes) + " NCCL nodes): " + first,
                     "run with the job's rank and node counts (--emulate-nodes K splits each host into K NCCL nodes)");
  }
  const BucketMap to = bucket_per_collective(entries, max_sizes, plan);
  std::map<std::pair<Collective, std::uint64_t>, JobPoint> points;
  std::map<std::pair<Collective, std::uint64_t>, std::map<DType, double>> dtype_time;
  for (const Entry& e : entries) {
    const auto key = std::pair(e.collective, to.at(e.collective).at(e.bytes));
    JobPoint& p = points[key];
    p.collective = e.collective;
    p.nranks = job.nranks;
    p.nnodes = job.nnodes;
    p.size_bytes = key.second;
    p.calls_per_step += e.calls_per_step;
    p.time_us_per_step += e.time_us_per_step;
    p.time_estimated = p.time_estimated || e.estimated;
    ++p.shapes;
    dtype_time[key][e.dtype] += e.time_us_per_step;
  }
  for (auto& [key, p] : points) {
    const auto& times = dtype_time[key];
    p.dtype = std::max_element(times.begin(), times.end(), [](const auto& a, const auto& b) { return a.second < b.second; })->first;
    plan.points.push_back(p);
  }
  return plan;
}

}  // namespace cctune::workload
