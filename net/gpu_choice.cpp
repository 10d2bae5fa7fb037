#include "net/gpu_choice.hpp"

#include <vector>

#include "topology/paths.hpp"

namespace cctune::net {

std::string nearest_gpu_bus_id(const topo::NodeTopology& node, const std::string& nic, int local_index) {
  const topo::Nic* n = nullptr;
  for (const auto& x : node.nics)
    if (x.name == nic) n = &x;
  if (!n || node.gpus.empty()) return {};
  std::vector<const topo::Gpu*> nearest;
  auto best = topo::PathClass::SYS;
  for (const auto& g : node.gpus) {
    const auto cls = topo::gpu_nic_path(g, *n).cls;
    if (nearest.empty() || cls < best) {
      nearest = {&g};
      best = cls;
    } else if (cls == best) {
      nearest.push_back(&g);
    }
  }
  const auto pick = static_cast<std::size_t>(local_index < 0 ? 0 : local_index) % nearest.size();
  return nearest[pick]->pci_bus_id;
}

}  // namespace cctune::net
