#include "app/ab/job_step.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace cctune::app {

std::vector<double> row_weights(const std::vector<JobPoint>& rows, const std::vector<JobPoint>& job) {
  std::vector<double> w(rows.size(), 0.0);
  for (const JobPoint& p : job) {
    double best = std::numeric_limits<double>::infinity();
    for (const JobPoint& r : rows)
      if (r.collective == p.collective && r.size_bytes > 0 && p.size_bytes > 0)
        best = std::min(best, std::abs(std::log(static_cast<double>(r.size_bytes) / static_cast<double>(p.size_bytes))));
    if (!std::isfinite(best)) continue;  // its collective was not measured
    std::vector<std::size_t> at, same_type;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const JobPoint& r = rows[i];
      if (r.collective != p.collective || r.size_bytes == 0) continue;
      if (std::abs(std::log(static_cast<double>(r.size_bytes) / static_cast<double>(p.size_bytes))) != best) continue;
      at.push_back(i);
      if (r.dtype == p.dtype) same_type.push_back(i);
    }
    const auto& to = same_type.empty() ? at : same_type;
    for (std::size_t i : to) w[i] += p.calls_per_step / static_cast<double>(to.size());
  }
  return w;
}

AbSamples job_step_samples(const std::vector<AbSamples>& rows, const std::vector<double>& weights) {
  AbSamples out;
  std::size_t rounds = 0;
  for (const AbSamples& r : rows) rounds = std::max({rounds, r.a_us.size(), r.b_us.size()});
  for (std::size_t k = 0; k < rounds; ++k) {
    double a = 0, b = 0;
    bool complete = true;
    for (std::size_t i = 0; i < rows.size() && i < weights.size(); ++i) {
      if (weights[i] <= 0) continue;
      const double ai = k < rows[i].a_us.size() ? rows[i].a_us[k] : 0;
      const double bi = k < rows[i].b_us.size() ? rows[i].b_us[k] : 0;
      if (!(ai > 0) || !(bi > 0)) complete = false;
      a += weights[i] * ai;
      b += weights[i] * bi;
    }
    if (!complete) continue;
    out.a_us.push_back(a);
    out.b_us.push_back(b);
  }
  return out;
}

}  // namespace cctune::app
