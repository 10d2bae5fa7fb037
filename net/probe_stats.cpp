#include "net/probe_stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "core/units.hpp"

namespace cctune::net {

namespace {
constexpr std::size_t peak_scan_limit = 4096;
constexpr std::size_t lat_measure_tail = 2;  // perftest's LAT_MEASURE_TAIL
}  // namespace

BandwidthStats bandwidth_from_timestamps(std::uint64_t size_bytes, std::span<const double> posted_s,
                                         std::span<const double> completed_s) {
  BandwidthStats s;
  s.size_bytes = size_bytes;
  const std::size_t n = std::min(posted_s.size(), completed_s.size());
  s.iterations = static_cast<long>(n);
  if (n == 0) return s;
  s.time_s = completed_s[n - 1] - posted_s[0];
  if (s.time_s > 0)
    s.avg_GBps = static_cast<double>(size_bytes) * static_cast<double>(n) / s.time_s / bytes_per_GB;
  double best = std::numeric_limits<double>::infinity();
  const std::size_t m = std::min(n, peak_scan_limit);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = i; j < m; ++j) {
      const double t = (completed_s[j] - posted_s[i]) / static_cast<double>(j - i + 1);
      if (t > 0 && t < best) best = t;
    }
  s.peak_GBps = std::isfinite(best) ? static_cast<double>(size_bytes) / best / bytes_per_GB : s.avg_GBps;
  // A peak below the average would only come from the cap; never report that.
  s.peak_GBps = std::max(s.peak_GBps, s.avg_GBps);
  return s;
}

LatencyStats latency_from_samples(std::uint64_t size_bytes, std::span<const double> one_way_us) {
  LatencyStats s;
  s.size_bytes = size_bytes;
  s.iterations = static_cast<long>(one_way_us.size());
  if (one_way_us.empty()) return s;
  std::vector<double> d(one_way_us.begin(), one_way_us.end());
  std::sort(d.begin(), d.end());
  // Keep at least one sample when there are too few to trim.
  const std::size_t cnt = d.size() > lat_measure_tail ? d.size() - lat_measure_tail : d.size() - 1;
  const std::size_t kept = std::max<std::size_t>(cnt, 1);
  s.min_us = d.front();
  s.typical_us = kept % 2 == 1 ? d[kept / 2] : (d[kept / 2 - 1] + d[kept / 2]) / 2;
  double sum = 0;
  for (std::size_t i = 0; i < kept; ++i) sum += d[i];
  s.avg_us = sum / static_cast<double>(kept);
  double var = 0;
  for (std::size_t i = 0; i < kept; ++i) var += (d[i] - s.avg_us) * (d[i] - s.avg_us);
  s.stdev_us = std::sqrt(var / static_cast<double>(kept));
  auto at = [&](double q) {
    const auto i = static_cast<std::size_t>(std::ceil(static_cast<double>(cnt) * q));
    return d[std::min(i, d.size() - 1)];
  };
  s.p99_us = at(0.99);
  s.p999_us = at(0.999);
  s.max_us = d[std::min(cnt, d.size() - 1)];
  return s;
}

void to_json(nlohmann::json& j, const BandwidthStats& s) {
  j = {{"size_bytes", s.size_bytes}, {"iterations", s.iterations}, {"time_s", s.time_s},
       {"avg_GBps", s.avg_GBps},     {"peak_GBps", s.peak_GBps},   {"avg_Gbps", s.avg_Gbps()},
       {"peak_Gbps", s.peak_Gbps()}};
}

void to_json(nlohmann::json& j, const LatencyStats& s) {
  j = {{"size_bytes", s.size_bytes}, {"iterations", s.iterations}, {"min_us", s.min_us},
       {"typical_us", s.typical_us}, {"avg_us", s.avg_us},         {"p99_us", s.p99_us},
       {"p99_9_us", s.p999_us},      {"max_us", s.max_us},         {"stdev_us", s.stdev_us}};
}

}  // namespace cctune::net
