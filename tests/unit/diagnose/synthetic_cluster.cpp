#include "synthetic_cluster.hpp"

#include <random>

namespace cctune::diagnose::testing {

std::string host_name(int node) { return "gpu-" + std::to_string(node); }

Observations healthy_cluster(const ClusterShape& shape, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(1.0, shape.noise);
  Observations obs;
  for (int n = 0; n < shape.nodes; ++n) {
    for (int g = 0; g < shape.gpus_per_node; ++g) obs.gpus.push_back({host_name(n), g, 100 * noise(rng), 0, 0});
    obs.nodes.push_back({host_name(n), 300 * noise(rng), 450, 0});
  }
  const auto add_pair = [&](int a, int b) { obs.pairs.push_back({host_name(a), host_name(b), 45 * noise(rng), 50, 0}); };
  if (shape.pairs == PairSchedule::Ring) {
    for (int n = 0; n < shape.nodes && shape.nodes > 1; ++n)
      if (shape.nodes > 2 || n == 0) add_pair(n, (n + 1) % shape.nodes);
  } else {
    for (int a = 0; a < shape.nodes; ++a)
      for (int b = a + 1; b < shape.nodes; ++b) add_pair(a, b);
  }
  return obs;
}

void slow_gpu(Observations& obs, int node, int gpu, double factor) {
  for (GpuFigure& g : obs.gpus)
    if (g.host == host_name(node) && g.gpu == gpu) g.time_us *= factor;
}

void slow_node(Observations& obs, int node, double factor) {
  for (NodeFigure& n : obs.nodes)
    if (n.host == host_name(node)) n.busbw_gbps /= factor;
  for (GpuFigure& g : obs.gpus)
    if (g.host == host_name(node)) g.time_us *= factor;
}

void slow_nic(Observations& obs, int node, double factor) {
  for (PairFigure& p : obs.pairs)
    if (p.host_a == host_name(node) || p.host_b == host_name(node)) p.gbps /= factor;
}

void slow_pair(Observations& obs, int a, int b, double factor) {
  for (PairFigure& p : obs.pairs)
    if ((p.host_a == host_name(a) && p.host_b == host_name(b)) || (p.host_a == host_name(b) && p.host_b == host_name(a)))
      p.gbps /= factor;
}

}  // namespace cctune::diagnose::testing
