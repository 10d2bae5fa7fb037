#pragma once
// JSON form of the topology model (schema "cctune.topology/1", documented in
// docs/TOPOLOGY.md, JSON Schema in configs/schema/topology.schema.json).
// Writing adds a "derived" object per node (path matrix, nearest NICs, limits), computed
// afresh from the node's fields. Reading keeps its limits and nearest NICs as written
// (NodeTopology::derived): the paths and the rendering recompute from the fields, while a
// results reader compares with what the measuring cctune derived.
#include <nlohmann/json.hpp>
#include <string>

#include "topology/topology.hpp"

namespace cctune::topo {

inline constexpr const char* topology_schema = "cctune.topology/1";

nlohmann::json to_json(const NodeTopology& node, bool with_derived = true);
nlohmann::json to_json(const Topology& topology, bool with_derived = true);
// Throws UsageError saying which key is wrong; callers add the file name.
// `where` names the node in errors of its "derived" block ("topology.nodes[2]").
NodeTopology node_from_json(const nlohmann::json& j, const std::string& where = "node");
Topology topology_from_json(const nlohmann::json& j);

// Reads a topology file; any problem is a one-line UsageError naming the file.
Topology load_topology_file(const std::string& path);
// The text of a topology file; `source` names it in errors. Throws UsageError.
Topology parse_topology(const std::string& text, const std::string& source);

}  // namespace cctune::topo
