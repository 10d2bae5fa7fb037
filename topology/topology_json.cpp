#include "topology/topology_json.hpp"

#include <optional>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/json_fields.hpp"
#include "core/json_depth.hpp"
#include "topology/paths.hpp"

namespace cctune::topo {

using nlohmann::json;

namespace {

constexpr const char* kFix = "pass a topology cctune wrote (cctune topo --json)";

// Every field is read through JsonFields: one of another type is named by its path
// ("topology.nodes[0].gpus[1].index: expected an integer, got a string"), never by nlohmann's text.
template <typename T>
T opt(const JsonFields& f, std::string_view key, T fallback) {
  return f.get_optional<T>(key).value_or(fallback);
}

// An optional list: absent is empty; present, it must be a list.
std::size_t count_of(const JsonFields& f, std::string_view key) { return f.has(key) ? f.array(key).size() : 0; }

std::vector<std::string> strings_of(const JsonFields& f, std::string_view key) {
  std::vector<std::string> out;
  for (std::size_t k = 0; k < count_of(f, key); ++k)
    out.push_back(f.read<std::string>(f.array(key)[k], f.path(key) + "[" + std::to_string(k) + "]"));
  return out;
}

// An optional object: absent or null gives nullopt; present, it must be an object.
std::optional<JsonFields> object_of(const JsonFields& f, std::string_view key) {
  if (!f.has(key) || f.raw()[std::string(key)].is_null()) return std::nullopt;
  return f.object(key);
}

json placement_json(const PciPlacement& p) {
  return {{"host_bridge", p.host_bridge}, {"switches", p.switches},
          {"parent_bridge", p.parent_bridge}, {"numa_node", p.numa_node},
          {"package", p.package}, {"link_GBps", p.link_GBps}};
}

PciPlacement placement_from(const std::optional<JsonFields>& f) {
  PciPlacement p;
  if (!f) return p;
  p.host_bridge = opt<std::string>(*f, "host_bridge", "");
  p.switches = strings_of(*f, "switches");
  p.parent_bridge = opt<std::string>(*f, "parent_bridge", "");
  p.numa_node = opt<int>(*f, "numa_node", -1);
  p.package = opt<int>(*f, "package", -1);
  p.link_GBps = opt<double>(*f, "link_GBps", 0.0);
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

Gpu gpu_from(const JsonFields& f) {
  Gpu g;
  g.index = f.get<int>("index");
  g.name = opt<std::string>(f, "name", "");
  g.uuid = opt<std::string>(f, "uuid", "");
  g.pci_bus_id = normalize_pci_bus_id(f.get<std::string>("pci_bus_id"));
  g.memory_bytes = opt<std::uint64_t>(f, "memory_bytes", 0);
  g.numa_node = opt<int>(f, "numa_node", -1);
  g.cpu_affinity = opt<std::string>(f, "cpu_affinity", "");
  g.pcie_generation = opt<int>(f, "pcie_generation", 0);
  g.pcie_width = opt<int>(f, "pcie_width", 0);
  g.pcie_max_generation = opt<int>(f, "pcie_max_generation", 0);
  g.pcie_max_width = opt<int>(f, "pcie_max_width", 0);
  for (std::size_t i = 0; i < count_of(f, "nvlinks"); ++i) {
    const JsonFields l = f.element("nvlinks", i);
    NvLink n;
    n.link = l.get<int>("link");
    n.active = opt<bool>(l, "active", false);
    n.version = opt<int>(l, "version", 0);
    n.speed_GBps = opt<double>(l, "speed_GBps", 0.0);
    n.remote_pci_bus_id = normalize_pci_bus_id(opt<std::string>(l, "remote_pci_bus_id", ""));
    n.remote_type = opt<std::string>(l, "remote_type", "unknown");
    g.nvlinks.push_back(n);
  }
  g.placement = placement_from(object_of(f, "placement"));
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

Nic nic_from(const JsonFields& f) {
  Nic n;
  n.name = f.get<std::string>("name");
  n.pci_bus_id = normalize_pci_bus_id(opt<std::string>(f, "pci_bus_id", ""));
  for (std::size_t i = 0; i < count_of(f, "ports"); ++i) {
    const JsonFields pf = f.element("ports", i);
    IbPort p;
    p.port = pf.get<int>("port");
    p.state = opt<std::string>(pf, "state", "");
    p.link_layer = opt<std::string>(pf, "link_layer", "");
    p.rate_Gbps = opt<double>(pf, "rate_Gbps", 0.0);
    p.width_lanes = opt<int>(pf, "width_lanes", 0);
    p.lane_Gbps = opt<double>(pf, "lane_Gbps", 0.0);
    p.netdev = opt<std::string>(pf, "netdev", "");
    for (std::size_t k = 0; k < count_of(pf, "gids"); ++k) {
      const JsonFields g = pf.element("gids", k);
      p.gids.push_back({g.get<int>("index"), g.get<std::string>("gid"), opt<std::string>(g, "type", "")});
    }
    n.ports.push_back(p);
  }
  n.placement = placement_from(object_of(f, "placement"));
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
  const JsonFields f(block, where, kFix);
  NodeDerived d;
  for (std::size_t i = 0; i < count_of(f, "gpus"); ++i) {
    const JsonFields g = f.element("gpus", i);
    GpuDerived gpu{g.get_optional<int>("index").value_or(0), {}, g.get_optional<double>("nvlink_GBps").value_or(0),
                   g.get_optional<double>("pcie_GBps").value_or(0)};
    gpu.nearest_nics = strings_of(g, "nearest_nics");
    d.gpus.push_back(std::move(gpu));
  }
  for (std::size_t i = 0; i < count_of(f, "nics"); ++i) {
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
  for (const auto& i : node.net_interfaces) {
    ifs.push_back({{"name", i.name}, {"operstate", i.operstate}, {"speed_Gbps", i.speed_Gbps},
                   {"mtu", i.mtu}, {"mac", i.mac}, {"pci_bus_id", i.pci_bus_id},
                   {"rdma_device", i.rdma_device}, {"is_virtual", i.is_virtual},
                   {"placement", placement_json(i.placement)}});
    if (i.shaped_Gbps > 0) ifs.back()["shaped_Gbps"] = i.shaped_Gbps;  // only where shaped: files stay as they were
  }
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
  const JsonFields f(j, where, kFix);
  NodeTopology node;
  node.hostname = f.get<std::string>("hostname");
  node.source = opt<std::string>(f, "source", "");
  if (const auto cpu = object_of(f, "cpu"))
    node.cpu = {opt<std::string>(*cpu, "model", ""), opt<int>(*cpu, "packages", 0), opt<int>(*cpu, "cores", 0), opt<int>(*cpu, "pus", 0),
                opt<std::string>(*cpu, "cpuset", "")};
  for (std::size_t k = 0; k < count_of(f, "numa_nodes"); ++k) {
    const JsonFields n = f.element("numa_nodes", k);
    node.numa_nodes.push_back({n.get<int>("os_index"), opt<std::string>(n, "cpuset", ""), opt<std::uint64_t>(n, "memory_bytes", 0)});
  }
  for (std::size_t k = 0; k < count_of(f, "gpus"); ++k) node.gpus.push_back(gpu_from(f.element("gpus", k)));
  for (std::size_t k = 0; k < count_of(f, "nics"); ++k) node.nics.push_back(nic_from(f.element("nics", k)));
  for (std::size_t k = 0; k < count_of(f, "net_interfaces"); ++k) {
    const JsonFields i = f.element("net_interfaces", k);
    NetInterface n;
    n.name = i.get<std::string>("name");
    n.operstate = opt<std::string>(i, "operstate", "unknown");
    n.speed_Gbps = opt<double>(i, "speed_Gbps", 0.0);
    n.shaped_Gbps = opt<double>(i, "shaped_Gbps", 0.0);
    n.mtu = opt<int>(i, "mtu", 0);
    n.mac = opt<std::string>(i, "mac", "");
    n.pci_bus_id = normalize_pci_bus_id(opt<std::string>(i, "pci_bus_id", ""));
    n.rdma_device = opt<std::string>(i, "rdma_device", "");
    n.is_virtual = opt<bool>(i, "is_virtual", false);
    n.placement = placement_from(object_of(i, "placement"));
    node.net_interfaces.push_back(n);
  }
  if (const auto sw = object_of(f, "software"))
    node.software = {opt<std::string>(*sw, "kernel", ""), opt<std::string>(*sw, "hwloc", ""), opt<std::string>(*sw, "driver", ""),
                     opt<std::string>(*sw, "cuda_driver", ""), opt<std::string>(*sw, "nccl", "")};
  for (std::size_t k = 0; k < count_of(f, "absences"); ++k) {
    const JsonFields a = f.element("absences", k);
    node.absences.push_back({a.get<std::string>("component"), opt<std::string>(a, "reason", "")});
  }
  if (const auto d = object_of(f, "derived")) node.derived = derived_from(d->raw(), d->where());
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
  const JsonFields fields(j, "topology", kFix);
  const auto schema = opt<std::string>(fields, "schema", "");
  if (schema != topology_schema)
    throw UsageError("schema is \"" + schema + "\", expected \"" + topology_schema + "\"");
  Topology t;
  for (std::size_t i = 0; i < count_of(fields, "nodes"); ++i)
    t.nodes.push_back(node_from_json(fields.array("nodes")[i], fields.path("nodes") + "[" + std::to_string(i) + "]"));
  // A profile's provenance comes from a group's fingerprint (F15).
  for (std::size_t i = 0; i < count_of(fields, "groups"); ++i) {
    const JsonFields g = fields.element("groups", i);
    t.groups.push_back({g.get<std::string>("fingerprint"), strings_of(g, "hosts")});
  }
  for (std::size_t i = 0; i < count_of(fields, "warnings"); ++i) {
    const JsonFields w = fields.element("warnings", i);
    t.warnings.push_back({w.get<std::string>("node"), w.get<std::string>("item"), w.get<std::string>("message")});
  }
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
