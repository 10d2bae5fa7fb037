#include "topology/topology_section.hpp"

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "topology/paths.hpp"
#include "topology/topology_json.hpp"

namespace cctune::topo {

namespace {

constexpr const char* fix = "pass a results.json whose topology section cctune wrote (cctune topo --json, docs/TOPOLOGY.md)";

Topology parse_section(const nlohmann::json& j) {
  try {
    return topology_from_json(j);
  } catch (const nlohmann::json::exception& e) {  // a node field of another type
    throw UsageError(std::string("topology: ") + e.what(), fix);
  } catch (const UsageError& e) {
    const std::string what = e.what_only();
    // The group reader names its fields by path already ("topology.groups[0]...").
    throw UsageError(what.rfind("topology", 0) == 0 ? what : "topology: " + what, fix);
  }
}

}  // namespace

const Topology* topology_of(const Results& results) {
  if (!results.topology.present()) return nullptr;
  return &results.topology.get<Topology>(parse_section);
}

ResultSection topology_section(Topology topology) {
  // What the written JSON holds and topology_of would read back: each node's derived block.
  for (NodeTopology& node : topology.nodes)
    if (!node.derived) node.derived = derive(node);
  nlohmann::json written = to_json(topology);
  return ResultSection::seeded(std::move(written), std::move(topology));
}

std::string single_group_fingerprint(const Topology& topology) {
  return topology.groups.size() == 1 ? topology.groups[0].fingerprint : std::string();
}

}  // namespace cctune::topo
