#pragma once
// The topology section of results.json (core/result_section.hpp) as the typed Topology: the
// one accessor readers use, so the section is parsed once and its keys are named only by
// topology_json.cpp.
#include <string>

#include "core/results.hpp"
#include "topology/topology.hpp"

namespace cctune::topo {

// nullptr when no topology was attached. A section that is not cctune.topology/1 is a
// UsageError of one line naming "topology" and the field.
const Topology* topology_of(const Results& results);

// The section of a topology this process probed: its JSON (cctune.topology/1, each node's
// derived limits included) with `topology` in place as topology_of's value.
ResultSection topology_section(Topology topology);

// What a profile records as its topology fingerprint: the one node group's, when every node
// looks the same; empty for a heterogeneous cluster or a topology written before nodes were
// grouped.
std::string single_group_fingerprint(const Topology& topology);

}  // namespace cctune::topo
