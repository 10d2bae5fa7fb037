#pragma once
// The cluster view: every node probed once, gathered to rank 0 over the RankComm seam,
// identical nodes grouped by fingerprint, differences flagged as warnings.
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "comm/rank_comm.hpp"
#include "topology/topology.hpp"

namespace cctune::topo {

// What makes two nodes "the same machine": CPU, NUMA, GPUs (model, memory, PCIe, NVLinks),
// NICs (ports, state, rate), placements, driver and NCCL versions. Host names, UUIDs,
// GIDs and MACs are left out. 16 hex digits.
std::string fingerprint(const NodeTopology& node);

// Groups nodes by fingerprint (largest group first) and compares each node with the
// first node of the largest group: a GPU missing, a NIC or port missing, down or slower,
// a different driver / CUDA / NCCL version become warnings naming node and item.
Topology merge_nodes(std::vector<NodeTopology> nodes);

// Collective: every rank calls it with every rank's host, indexed by rank (the caller's
// JobLayout::hosts, gathered once per job). The lowest rank on each host runs `probe`; rank 0
// returns the merged cluster, the others std::nullopt.
std::optional<Topology> gather_cluster_topology(RankComm& comm, const std::vector<std::string>& hosts,
                                                const std::function<NodeTopology()>& probe);

}  // namespace cctune::topo
