#include "topology/topology_json.hpp"

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/json_fields.hpp"
#include "core/json_depth.hpp"
#include "topology/paths.hpp"

namespace cctune::topo {

using nlohmann::json;

namespace {

template <typename T>
T opt(const json& j, const char* key, T fallback) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  return it->get<T>();
}

const json& array_at(const json& j, const char* key) {
  static const json empty = json::array();
  auto it = j.find(key);
  if (it == j.end()) return empty;
  if (!it->is_array()) throw UsageError(std::string("\"") + key + "\" must be an array");
  return *it;
}

json placement_json(const PciPlacement& p) {
  return {{"host_bridge", p.host_bridge}, {"switches", p.switches},
          {"parent_bridge", p.parent_bridge}, {"numa_node", p.numa_node},
          {"package", p.package}, {"link_GBps", p.link_GBps}};
}

PciPlacement placement_from(const json& j) {
  PciPlacement p;
  if (j.is_null()) return p;
  p.host_bridge = opt<std::string>(j, "host_bridge", "");
  p.switches = opt<std::vector<std::string>>(j, "switches", {});
  p.parent_bridge = opt<std::string>(j, "parent_bridge", "");
  p.numa_node = opt<int>(j, "numa_node", -1);
  p.package = opt<int>(j, "package", -1);
  p.link_GBps = opt<double>(j, "link_GBps", 0.0);
  return p;
}

json gpu_json(const Gpu& g) {
  json links = json::array();
  for (const auto& l : g.nvlinks)
    links.push_back({{"link", l.link}, {"active", l.active}, {"version", l.version},
                     {"speed_GBps", l.speed_GBps}, {"remote_pci_bus_id", l.remote_pci_bus_id},
                     {"remote_type", l.remote_type}});
  return {{"index", g.index}, {"name", g.name}, {"uuid", g.uuid}, {"pci_bus_id", g.pci_bus_id},
          {"memory_bytes", g.memory_bytes}, {"numa_node", g.numa_node},
          {"cpu_affinity", g.cpu_affinity}, {"pcie_generation", g.pcie_generation},
          {"pcie_width", g.pcie_width}, {"pcie_max_generation", g.pcie_max_generation},
          {"pcie_max_width", g.pcie_max_width}, {"nvlinks", links},
          {"placement", placement_json(g.placement)}};
}

Gpu gpu_from(const json& j) {
  Gpu g;
  g.index = j.at("index").get<int>();
  g.name = opt<std::string>(j, "name", "");
  g.uuid = opt<std::string>(j, "uuid", "");
  g.pci_bus_id = normalize_pci_bus_id(j.at("pci_bus_id").get<std::string>());
  g.memory_bytes = opt<std::uint64_t>(j, "memory_bytes", 0);
  g.numa_node = opt<int>(j, "numa_node", -1);
  g.cpu_affinity = opt<std::string>(j, "cpu_affinity", "");
  g.pcie_generation = opt<int>(j, "pcie_generation", 0);
  g.pcie_width = opt<int>(j, "pcie_width", 0);
  g.pcie_max_generation = opt<int>(j, "pcie_max_generation", 0);
  g.pcie_max_width = opt<int>(j, "pcie_max_width", 0);
  for (const auto& l : array_at(j, "nvlinks")) {
    NvLink n;
    n.link = l.at("link").get<int>();
    n.active = opt<bool>(l, "active", false);
    n.version = opt<int>(l, "version", 0);
    n.speed_GBps = opt<double>(l, "speed_GBps", 0.0);
    n.remote_pci_bus_id = normalize_pci_bus_id(opt<std::string>(l, "remote_pci_bus_id", ""));
    n.remote_type = opt<std::string>(l, "remote_type", "unknown");
    g.nvlinks.push_back(n);
  }
  g.placement = placement_from(j.value("placement", json()));
  return g;
}

json nic_json(const Nic& n) {
  json ports = json::array();
  for (const auto& p : n.ports) {
    json gids = json::array();
    for (const auto& g : p.gids) gids.push_back({{"index", g.index}, {"gid", g.gid}, {"type", g.type}});
    ports.push_back({{"port", p.port}, {"state", p.state}, {"link_layer", p.link_layer},
                     {"rate_Gbps", p.rate_Gbps}, {"width_lanes", p.width_lanes},
                     {"lane_Gbps", p.lane_Gbps}, {"netdev", p.netdev}, {"gids", gids}});
  }
  return {{"name", n.name}, {"pci_bus_id", n.pci_bus_id}, {"ports", ports},
          {"placement", placement_json(n.placement)}};
}

Nic nic_from(const json& j) {
  Nic n;
  n.name = j.at("name").get<std::string>();
  n.pci_bus_id = normalize_pci_bus_id(opt<std::string>(j, "pci_bus_id", ""));
  for (const auto& pj : array_at(j, "ports")) {
    IbPort p;
    p.port = pj.at("port").get<int>();
    p.state = opt<std::string>(pj, "state", "");
    p.link_layer = opt<std::string>(pj, "link_layer", "");
    p.rate_Gbps = opt<double>(pj, "rate_Gbps", 0.0);
    p.width_lanes = opt<int>(pj, "width_lanes", 0);
    p.lane_Gbps = opt<double>(pj, "lane_Gbps", 0.0);
    p.netdev = opt<std::string>(pj, "netdev", "");
    for (const auto& gj : array_at(pj, "gids"))
      p.gids.push_back({gj.at("index").get<int>(), gj.at("gid").get<std::string>(),
                        opt<std::string>(gj, "type", "")});
    n.ports.push_back(p);
  }
  n.placement = placement_from(j.value("placement", json()));
  return n;
}

json derived_json(const NodeTopology& node) {
  PathMatrix m = path_matrix(node);
  json rows = json::array();
  for (const auto& row : m.paths) {
    json r = json::array();
    for (const auto& p : row) r.push_back(p.label());
    rows.push_back(r);
  }
  const NodeDerived d = derive(node);
  json gpus = json::array();
  for (const auto& g : d.gpus)
    gpus.push_back({{"index", g.index}, {"nearest_nics", g.nearest_nics}, {"nvlink_GBps", g.nvlink_GBps}, {"pcie_GBps", g.pcie_GBps}});
  json nics = json::array();
  for (const auto& n : d.nics) nics.push_back({{"name", n.name}, {"port_GBps", n.port_GBps}, {"pcie_GBps", n.pcie_GBps}});
  return {{"matrix", {{"names", m.names}, {"classes", rows}}}, {"gpus", gpus}, {"nics", nics}};
}

// The "derived" block as written (the matrix is for people: no reader needs it). Every field
// may be absent (0 or empty: unknown); one of another type is named by its path.
NodeDerived derived_from(const json& block, const std::string& where) {
  const JsonFields f(block, where, "pass a topology cctune wrote (cctune topo --json)");
  NodeDerived d;
  const auto list = [&](const char* key) { return f.has(key) ? f.array(key).size() : 0; };
  for (std::size_t i = 0; i < list("gpus"); ++i) {
    const JsonFields g = f.element("gpus", i);
    GpuDerived gpu{g.get_optional<int>("index").value_or(0), {}, g.get_optional<double>("nvlink_GBps").value_or(0),
                   g.get_optional<double>("pcie_GBps").value_or(0)};
    const json& nics = g.has("nearest_nics") ? g.array("nearest_nics") : json::array();
    for (std::size_t k = 0; k < nics.size(); ++k)
      gpu.nearest_nics.push_back(g.read<std::string>(nics[k], g.path("nearest_nics") + "[" + std::to_string(k) + "]"));
    d.gpus.push_back(std::move(gpu));
  }
  for (std::size_t i = 0; i < list("nics"); ++i) {
    const JsonFields n = f.element("nics", i);
    d.nics.push_back({n.get_optional<std::string>("name").value_or(""), n.get_optional<double>("port_GBps").value_or(0),
                      n.get_optional<double>("pcie_GBps").value_or(0)});
  }
  return d;
}

}  // namespace

json to_json(const NodeTopology& node, bool with_derived) {
  json numa = json::array();
  for (const auto& n : node.numa_nodes)
    numa.push_back({{"os_index", n.os_index}, {"cpuset", n.cpuset}, {"memory_bytes", n.memory_bytes}});
  json gpus = json::array(), nics = json::array(), ifs = json::array(), absences = json::array();
  for (const auto& g : node.gpus) gpus.push_back(gpu_json(g));
  for (const auto& n : node.nics) nics.push_back(nic_json(n));
  for (const auto& i : node.net_interfaces)
    ifs.push_back({{"name", i.name}, {"operstate", i.operstate}, {"speed_Gbps", i.speed_Gbps},
                   {"mtu", i.mtu}, {"mac", i.mac}, {"pci_bus_id", i.pci_bus_id},
                   {"rdma_device", i.rdma_device}, {"is_virtual", i.is_virtual},
                   {"placement", placement_json(i.placement)}});
  for (const auto& a : node.absences) absences.push_back({{"component", a.component}, {"reason", a.reason}});
  json j = {
      {"hostname", node.hostname},
      {"source", node.source},
      {"cpu", {{"model", node.cpu.model}, {"packages", node.cpu.packages}, {"cores", node.cpu.cores},
               {"pus", node.cpu.pus}, {"cpuset", node.cpu.cpuset}}},
      {"numa_nodes", numa},
      {"gpus", gpus},
      {"nics", nics},
      {"net_interfaces", ifs},
      {"software", {{"kernel", node.software.kernel}, {"hwloc", node.software.hwloc},
                    {"driver", node.software.driver}, {"cuda_driver", node.software.cuda_driver},
                    {"nccl", node.software.nccl}}},
      {"absences", absences}};
  if (with_derived) j["derived"] = derived_json(node);
  return j;
}

NodeTopology node_from_json(const json& j, const std::string& where) {
  if (!j.is_object()) throw UsageError("a node must be a JSON object");
  NodeTopology node;
  node.hostname = j.at("hostname").get<std::string>();
  node.source = opt<std::string>(j, "source", "");
  const json cpu = j.value("cpu", json::object());
  node.cpu = {opt<std::string>(cpu, "model", ""), opt<int>(cpu, "packages", 0), opt<int>(cpu, "cores", 0),
              opt<int>(cpu, "pus", 0), opt<std::string>(cpu, "cpuset", "")};
  for (const auto& n : array_at(j, "numa_nodes"))
    node.numa_nodes.push_back({n.at("os_index").get<int>(), opt<std::string>(n, "cpuset", ""),
                               opt<std::uint64_t>(n, "memory_bytes", 0)});
  for (const auto& g : array_at(j, "gpus")) node.gpus.push_back(gpu_from(g));
  for (const auto& n : array_at(j, "nics")) node.nics.push_back(nic_from(n));
  for (const auto& i : array_at(j, "net_interfaces")) {
    NetInterface n;
    n.name = i.at("name").get<std::string>();
    n.operstate = opt<std::string>(i, "operstate", "unknown");
    n.speed_Gbps = opt<double>(i, "speed_Gbps", 0.0);
    n.mtu = opt<int>(i, "mtu", 0);
    n.mac = opt<std::string>(i, "mac", "");
    n.pci_bus_id = normalize_pci_bus_id(opt<std::string>(i, "pci_bus_id", ""));
    n.rdma_device = opt<std::string>(i, "rdma_device", "");
    n.is_virtual = opt<bool>(i, "is_virtual", false);
    n.placement = placement_from(i.value("placement", json()));
    node.net_interfaces.push_back(n);
  }
  const json sw = j.value("software", json::object());
  node.software = {opt<std::string>(sw, "kernel", ""), opt<std::string>(sw, "hwloc", ""),
                   opt<std::string>(sw, "driver", ""), opt<std::string>(sw, "cuda_driver", ""),
                   opt<std::string>(sw, "nccl", "")};
  for (const auto& a : array_at(j, "absences"))
    node.absences.push_back({a.at("component").get<std::string>(), opt<std::string>(a, "reason", "")});
  if (const auto it = j.find("derived"); it != j.end() && !it->is_null()) node.derived = derived_from(*it, where + ".derived");
  return node;
}

json to_json(const Topology& t, bool with_derived) {
  json nodes = json::array(), groups = json::array(), warnings = json::array();
  for (const auto& n : t.nodes) nodes.push_back(to_json(n, with_derived));
  for (const auto& g : t.groups) groups.push_back({{"fingerprint", g.fingerprint}, {"hosts", g.hosts}});
  for (const auto& w : t.warnings)
    warnings.push_back({{"node", w.node}, {"item", w.item}, {"message", w.message}});
  return {{"schema", topology_schema}, {"nodes", nodes}, {"groups", groups}, {"warnings", warnings}};
}

Topology topology_from_json(const json& j) {
  if (!j.is_object()) throw UsageError("the top level must be a JSON object");
  auto schema = opt<std::string>(j, "schema", "");
  if (schema != topology_schema)
    throw UsageError("schema is \"" + schema + "\", expected \"" + topology_schema + "\"");
  Topology t;
  const json& nodes = array_at(j, "nodes");
  for (std::size_t i = 0; i < nodes.size(); ++i)
    t.nodes.push_back(node_from_json(nodes[i], "topology.nodes[" + std::to_string(i) + "]"));
  // Named by path: a profile's provenance comes from a group's fingerprint (F15).
  const JsonFields fields(j, "topology", "pass a topology cctune wrote (cctune topo --json)");
  if (fields.has("groups"))
    for (std::size_t i = 0; i < fields.array("groups").size(); ++i) {
      const JsonFields g = fields.element("groups", i);
      t.groups.push_back({g.get<std::string>("fingerprint"), g.raw().at("hosts").get<std::vector<std::string>>()});
    }
  for (const auto& w : array_at(j, "warnings"))
    t.warnings.push_back({w.at("node").get<std::string>(), w.at("item").get<std::string>(),
                          w.at("message").get<std::string>()});
  return t;
}

Topology load_topology_file(const std::string& path) {
  std::string text;
  try {
    text = read_file(path);
  } catch (const Error& e) {
    throw UsageError("cannot read topology file " + path + ": " + e.what_only(), e.fix());
  }
  return parse_topology(text, path);
}

Topology parse_topology(const std::string& text, const std::string& path) {
  if (json_nests_deeper_than(text))
    throw UsageError("topology file " + path + " nests arrays/objects deeper than " + std::to_string(max_json_depth) + " levels",
                     "pass a file written by `cctune topo --json`");
  try {
    const json doc = json::parse(text);
    if (const std::string bad = json_float_beyond_int(doc); !bad.empty()) throw UsageError(bad + ", out of range for its field");
    return topology_from_json(doc);
  } catch (const json::exception& e) {
    throw UsageError("topology file " + path + " is not valid: " + e.what(),
                     "pass a file written by `cctune topo --json`");
  } catch (const UsageError& e) {
    throw UsageError("topology file " + path + " is not valid: " + e.what_only(),
                     "pass a file written by `cctune topo --json`");
  }
}

}  // namespace cctune::topo
