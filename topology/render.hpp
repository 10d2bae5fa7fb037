#pragma once
// Text rendering of a topology for people: a matrix like `nvidia-smi topo -m` (with NICs
// and NUMA/CPU affinity), per-node facts with link limits, and the cluster summary.
// Formatting only: everything shown is computed in paths.hpp / cluster.hpp.
#include <ostream>

#include "topology/topology.hpp"

namespace cctune::topo {

void render_matrix(const NodeTopology& node, std::ostream& out);
void render_node(const NodeTopology& node, std::ostream& out);
// Per-node sections (one per group of identical nodes), then groups and warnings.
void render_topology(const Topology& topology, std::ostream& out);

}  // namespace cctune::topo
