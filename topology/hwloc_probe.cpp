#include "topology/hwloc_probe.hpp"

#include <hwloc.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>

#include "core/error.hpp"

namespace cctune::topo {

namespace {

struct TopologyDeleter {
  void operator()(hwloc_topology* t) const noexcept { hwloc_topology_destroy(t); }
};
using TopologyPtr = std::unique_ptr<hwloc_topology, TopologyDeleter>;

struct BitmapDeleter {
  void operator()(hwloc_bitmap_s* b) const noexcept { hwloc_bitmap_free(b); }
};
using BitmapPtr = std::unique_ptr<hwloc_bitmap_s, BitmapDeleter>;

std::string list_string(hwloc_const_bitmap_t set) {
  if (set == nullptr) return {};
  char* text = nullptr;
  if (hwloc_bitmap_list_asprintf(&text, set) < 0 || text == nullptr) return {};
  std::string s(text);
  std::free(text);
  return s;
}

std::string bus_id(const hwloc_obj_attr_u::hwloc_pcidev_attr_s& p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.%01x", p.domain, p.bus, p.dev, p.func);
  return buf;
}

std::string info(hwloc_obj_t obj, const char* name) {
  const char* v = obj ? hwloc_obj_get_info_by_name(obj, name) : nullptr;
  return v ? v : "";
}

std::string osdev_type(hwloc_obj_osdev_type_e t) {
  switch (t) {
    case HWLOC_OBJ_OSDEV_BLOCK: return "block";
    case HWLOC_OBJ_OSDEV_GPU: return "gpu";
    case HWLOC_OBJ_OSDEV_NETWORK: return "network";
    case HWLOC_OBJ_OSDEV_OPENFABRICS: return "openfabrics";
    case HWLOC_OBJ_OSDEV_DMA: return "dma";
    case HWLOC_OBJ_OSDEV_COPROC: return "coproc";
  }
  return "unknown";
}

PciPlacement placement_of(hwloc_topology_t topo, hwloc_obj_t dev) {
  PciPlacement p;
  p.link_GBps = dev->attr->pcidev.linkspeed;
  // Bridges from the device up to its host bridge.
  std::vector<hwloc_obj_t> chain;
  for (hwloc_obj_t o = dev->parent; o && o->type == HWLOC_OBJ_BRIDGE; o = o->parent) {
    if (o->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_HOST) {
      char buf[40];
      const auto& d = o->attr->bridge.downstream.pci;
      std::snprintf(buf, sizeof buf, "%04x:[%02x-%02x]", d.domain, d.secondary_bus, d.subordinate_bus);
      p.host_bridge = buf;
      break;
    }
    chain.insert(chain.begin(), o);
  }
  // PCIe below a host bridge: a root port, then each switch as an upstream port followed
  // by one of its downstream ports. A switch is named by its upstream port.
  for (std::size_t i = 1; i < chain.size(); i += 2) p.switches.push_back(bus_id(chain[i]->attr->pcidev));
  if (!chain.empty()) p.parent_bridge = bus_id(chain.back()->attr->pcidev);
  hwloc_obj_t anchor = hwloc_get_non_io_ancestor_obj(topo, dev);
  if (anchor && anchor->nodeset && hwloc_bitmap_weight(anchor->nodeset) == 1)
    p.numa_node = hwloc_bitmap_first(anchor->nodeset);
  for (hwloc_obj_t o = anchor; o; o = o->parent)
    if (o->type == HWLOC_OBJ_PACKAGE) {
      p.package = static_cast<int>(o->os_index);
      break;
    }
  if (p.package < 0 && hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE) == 1)
    p.package = static_cast<int>(hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, 0)->os_index);
  return p;
}

HwlocFacts read(hwloc_topology_t topo) {
  HwlocFacts f;
  f.version = HWLOC_VERSION;  // the release we build against (hwloc_get_api_version() gives only the API level)
  hwloc_obj_t root = hwloc_get_root_obj(topo);
  f.kernel = info(root, "OSRelease");
  f.hostname = info(root, "HostName");
  f.cpu.packages = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
  f.cpu.cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
  f.cpu.pus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
  f.cpu.cpuset = list_string(root->cpuset);
  f.cpu.model = info(hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, 0), "CPUModel");
  for (hwloc_obj_t n = nullptr; (n = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, n));)
    f.numa_nodes.push_back({static_cast<int>(n->os_index), list_string(n->cpuset),
                            static_cast<std::uint64_t>(n->attr->numanode.local_memory)});
  for (hwloc_obj_t d = nullptr; (d = hwloc_get_next_pcidev(topo, d));) {
    std::string id = bus_id(d->attr->pcidev);
    f.placements[id] = placement_of(topo, d);
    unsigned cls = d->attr->pcidev.class_id;
    if (d->attr->pcidev.vendor_id == 0x10de && (cls == 0x0302 || cls == 0x0300)) f.nvidia_gpus.push_back(id);
  }
  for (hwloc_obj_t o = nullptr; (o = hwloc_get_next_osdev(topo, o));) {
    OsDevice od{o->name ? o->name : "", osdev_type(o->attr->osdev.type), ""};
    if (o->parent && o->parent->type == HWLOC_OBJ_PCI_DEVICE) od.pci_bus_id = bus_id(o->parent->attr->pcidev);
    f.os_devices.push_back(od);
  }
  return f;
}

TopologyPtr make_topology() {
  hwloc_topology_t t = nullptr;
  if (hwloc_topology_init(&t) != 0) throw EnvironmentError("hwloc_topology_init failed");
  TopologyPtr topo(t);
  hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_ALL);
  return topo;
}

}  // namespace

HwlocFacts read_hwloc_system() {
  TopologyPtr topo = make_topology();
  if (hwloc_topology_load(topo.get()) != 0)
    throw EnvironmentError(std::string("hwloc could not read this machine's topology: ") + std::strerror(errno));
  return read(topo.get());
}

HwlocFacts read_hwloc_xml(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw UsageError("hwloc XML file " + path + " does not exist or is not a file");
  TopologyPtr topo = make_topology();
  if (hwloc_topology_set_xml(topo.get(), path.c_str()) != 0 || hwloc_topology_load(topo.get()) != 0)
    throw UsageError("hwloc XML file " + path + " could not be loaded (truncated or not hwloc XML)",
                     "write it with `lstopo --of xml FILE`");
  HwlocFacts f = read(topo.get());
  if (f.cpu.pus == 0) throw UsageError("hwloc XML file " + path + " describes no CPU");
  return f;
}

void bind_process_to_cpuset(const std::string& cpuset) {
  TopologyPtr topo = make_topology();
  hwloc_topology_set_io_types_filter(topo.get(), HWLOC_TYPE_FILTER_KEEP_NONE);
  if (hwloc_topology_load(topo.get()) != 0) throw EnvironmentError("hwloc could not read this machine's topology");
  BitmapPtr set(hwloc_bitmap_alloc());
  if (!set || hwloc_bitmap_list_sscanf(set.get(), cpuset.c_str()) != 0 || hwloc_bitmap_iszero(set.get()))
    throw UsageError("\"" + cpuset + "\" is not a CPU list (expected e.g. 0-23,48-71)");
  if (hwloc_set_cpubind(topo.get(), set.get(), HWLOC_CPUBIND_PROCESS) != 0)
    throw EnvironmentError("cannot bind this process to CPUs " + cpuset + ": " + std::strerror(errno),
                           "check the CPUs allowed to this job (cgroup / Slurm --cpu-bind)");
}

std::string current_cpu_binding() {
  TopologyPtr topo = make_topology();
  hwloc_topology_set_io_types_filter(topo.get(), HWLOC_TYPE_FILTER_KEEP_NONE);
  if (hwloc_topology_load(topo.get()) != 0) return {};
  BitmapPtr set(hwloc_bitmap_alloc());
  if (hwloc_get_cpubind(topo.get(), set.get(), HWLOC_CPUBIND_PROCESS) != 0) return {};
  return list_string(set.get());
}

}  // namespace cctune::topo
