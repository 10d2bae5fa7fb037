#pragma once
// Synthetic clusters for the attribution tests: healthy figures times seeded noise, with
// faults injected by name.
#include <cstdint>
#include <string>

#include "diagnose/attribution.hpp"

namespace cctune::diagnose::testing {

enum class PairSchedule { All, Ring };

struct ClusterShape {
  int nodes = 8;
  int gpus_per_node = 8;
  double noise = 0.03;  // standard deviation of the multiplicative noise
  PairSchedule pairs = PairSchedule::All;
};

std::string host_name(int node);

// Healthy: 100 us per GPU, 300 GB/s per node (limit 450), 45 GB/s per pair (limit 50).
Observations healthy_cluster(const ClusterShape& shape, std::uint32_t seed);

void slow_gpu(Observations& obs, int node, int gpu, double factor);  // time x factor
void slow_node(Observations& obs, int node, double factor);          // its collective and all its GPUs
void slow_nic(Observations& obs, int node, double factor);           // every pair it is in
void slow_pair(Observations& obs, int a, int b, double factor);

}  // namespace cctune::diagnose::testing
