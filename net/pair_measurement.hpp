#pragma once
// What one pair measurement yields, whatever the transport.
#include <cstdint>
#include <vector>

#include "net/probe_options.hpp"
#include "net/probe_stats.hpp"

namespace cctune::net {

struct PairMeasurement {
  std::vector<BandwidthStats> bandwidth;  // one per size, ascending
  LatencyStats latency;
};

// min_bytes, min_bytes * f, ... up to max_bytes (max_bytes always included).
std::vector<std::uint64_t> bandwidth_sizes(const ProbeOptions& o);

}  // namespace cctune::net
