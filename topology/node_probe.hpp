#pragma once
// One node's topology: run the probes (or read fixtures) and join their facts.
#include <string>
#include <vector>

#include "topology/hwloc_probe.hpp"
#include "topology/topology.hpp"

namespace cctune::topo {

// Joins device facts with hwloc's view: PCI placement of every GPU, NIC and interface,
// a GPU's NUMA node and CPU affinity where NVML did not say, CPU and NUMA facts.
void apply_hwloc(const HwlocFacts& hw, NodeTopology& node);

// Probes this machine: hwloc, NVML (dlopen), ibverbs, sysfs, NCCL version.
// Missing driver / library / device are recorded in `absences`, never thrown.
NodeTopology probe_local_node();

// This machine's host name (gethostname).
std::string local_hostname();

}  // namespace cctune::topo
