#pragma once
// Bandwidth and latency statistics exactly as perftest defines them (ib_write_bw,
// ib_write_lat; src/perftest_parameters.c print_report_bw / print_report_lat), computed
// from raw timestamps so measurement and formatting stay apart.
#include <cstdint>
#include <span>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace cctune::net {

struct BandwidthStats {
  std::uint64_t size_bytes = 0;
  long iterations = 0;       // messages counted (iterations x QPs)
  double time_s = 0;         // last completion - first post
  double avg_GBps = 0;       // bytes / time_s / 1e9
  double peak_GBps = 0;      // perftest's peak: best window of consecutive messages
  double avg_Gbps() const { return avg_GBps * 8; }
  double peak_Gbps() const { return peak_GBps * 8; }
};

// perftest: avg = size x n / (tcompleted[n-1] - tposted[0]); peak = size / min over
// i <= j of (tcompleted[j] - tposted[i]) / (j - i + 1). Times in seconds, on one clock,
// indexed by message in posting order. The peak scan is O(n^2): perftest's own; we cap
// it at the first 4096 messages (documented) to keep large runs cheap.
BandwidthStats bandwidth_from_timestamps(std::uint64_t size_bytes, std::span<const double> posted_s,
                                         std::span<const double> completed_s);

struct LatencyStats {
  std::uint64_t size_bytes = 0;
  long iterations = 0;
  // One-way latency = RTT / 2, microseconds.
  double min_us = 0, typical_us = 0, avg_us = 0, p99_us = 0, p999_us = 0, max_us = 0, stdev_us = 0;
};

// perftest (print_report_lat): sort the per-iteration samples, drop the 2 largest
// (LAT_MEASURE_TAIL), typical = median of the rest, avg over the rest, p99 = sorted
// [ceil(0.99 cnt)], p99.9 = sorted[ceil(0.999 cnt)], max = sorted[cnt] (the smallest dropped
// sample, as perftest prints it). Input: one-way samples (RTT / 2) in microseconds.
LatencyStats latency_from_samples(std::uint64_t size_bytes, std::span<const double> one_way_us);

void to_json(nlohmann::json& j, const BandwidthStats& s);
void to_json(nlohmann::json& j, const LatencyStats& s);

}  // namespace cctune::net
