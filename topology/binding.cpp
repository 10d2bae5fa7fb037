#include "topology/binding.hpp"

#include "core/error.hpp"
#include "topology/hwloc_probe.hpp"
#include "topology/paths.hpp"

namespace cctune::topo {

namespace {

const Gpu& require_gpu(const NodeTopology& node, const std::string& gpu) {
  const Gpu* g = find_gpu(node, gpu);
  if (!g)
    throw UsageError("no GPU \"" + gpu + "\" on " + node.hostname + " (" + std::to_string(node.gpus.size()) + " GPUs)",
                     "name a GPU by index or PCI bus id, as `cctune topo` lists them");
  return *g;
}

}  // namespace

std::string gpu_cpuset(const NodeTopology& node, const std::string& gpu) {
  const Gpu& g = require_gpu(node, gpu);
  for (const auto& n : node.numa_nodes)
    if (n.os_index == g.numa_node && !n.cpuset.empty()) return n.cpuset;
  if (!g.cpu_affinity.empty()) return g.cpu_affinity;
  return node.cpu.cpuset;
}

void bind_process_to_gpu(const NodeTopology& node, const std::string& gpu) {
  bind_process_to_cpuset(gpu_cpuset(node, gpu));
}

std::vector<std::string> nearest_nic_names(const NodeTopology& node, const std::string& gpu) {
  return nearest_nics(node, require_gpu(node, gpu));
}

}  // namespace cctune::topo
