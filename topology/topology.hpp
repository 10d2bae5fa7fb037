#pragma once
// The topology model: plain values, no hardware handles. Probes (hwloc, NVML, ibverbs,
// sysfs) fill it; everything else (distance classes, limits, cluster merge, rendering)
// works on it, so it is tested from fixtures. JSON form: topology_json.hpp, docs/TOPOLOGY.md.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cctune::topo {

// Where a PCI device sits: enough to tell PIX / PXB / PHB / NODE / SYS apart.
struct PciPlacement {
  std::string host_bridge;            // e.g. "0000:[15-1f]"; empty when unknown
  std::vector<std::string> switches;  // PCIe switches from the host bridge down, each
                                      // named by its upstream port's bus id
  std::string parent_bridge;          // bus id of the bridge port right above the device
  int numa_node = -1;                 // -1: unknown
  int package = -1;
  double link_GBps = 0;               // PCIe link of the device itself, per direction (0: unknown)
};

struct NvLink {
  int link = 0;
  bool active = false;
  int version = 0;                  // as NVML reports it (0: unknown)
  double speed_GBps = 0;            // per link and direction
  std::string remote_pci_bus_id;    // normalised, see normalize_pci_bus_id
  std::string remote_type;          // "gpu", "switch", "npu", "unknown"
};

struct Gpu {
  int index = 0;
  std::string name;
  std::string uuid;
  std::string pci_bus_id;
  std::uint64_t memory_bytes = 0;
  int numa_node = -1;
  std::string cpu_affinity;         // hwloc list form, e.g. "0-55,112-167"
  int pcie_generation = 0;          // current link; 0: unknown
  int pcie_width = 0;
  int pcie_max_generation = 0;
  int pcie_max_width = 0;
  std::vector<NvLink> nvlinks;
  PciPlacement placement;
};

struct Gid {
  int index = 0;
  std::string gid;                  // "fe80:0000:0000:0000:...." (8 groups of 4 hex digits)
  std::string type;                 // "IB/RoCE v1", "RoCE v2" or empty
};

struct IbPort {
  int port = 1;
  std::string state;                // "ACTIVE", "DOWN", "INIT", "ARMED", ...
  std::string link_layer;           // "InfiniBand" or "Ethernet" (RoCE)
  double rate_Gbps = 0;             // lane speed x width, as ibstat prints it
  int width_lanes = 0;
  double lane_Gbps = 0;
  std::string netdev;               // Linux interface behind the port, if any
  std::vector<Gid> gids;
};

struct Nic {
  std::string name;                 // RDMA device name: "mlx5_0"
  std::string pci_bus_id;
  std::vector<IbPort> ports;
  PciPlacement placement;
};

struct NetInterface {
  std::string name;
  std::string operstate;            // "up", "down", "unknown"
  double speed_Gbps = 0;            // the driver's (sysfs); 0: unknown. A veth says 10 whatever it carries
  double shaped_Gbps = 0;           // a tc tbf's rate on its egress (topology/shaped_rate.hpp); 0: not shaped
  int mtu = 0;
  std::string mac;
  std::string pci_bus_id;           // empty for virtual interfaces
  std::string rdma_device;          // the RDMA device behind it, if any
  bool is_virtual = false;
  PciPlacement placement;
};

struct NumaNode {
  int os_index = 0;
  std::string cpuset;               // hwloc list form
  std::uint64_t memory_bytes = 0;
};

struct CpuInfo {
  std::string model;
  int packages = 0;
  int cores = 0;
  int pus = 0;
  std::string cpuset;
};

struct Software {
  std::string kernel;
  std::string hwloc;
  std::string driver;               // NVIDIA driver
  std::string cuda_driver;          // CUDA version the driver supports, "13.0"
  std::string nccl;                 // libnccl.so.2 found at run time, "2.28.9"
};

// Something a probe could not see, and why: reported, never an error.
struct Absence {
  std::string component;            // "gpu", "rdma", "nccl", "pci"
  std::string reason;
};

// What a node's links give (topology/paths.hpp), as the "derived" block of cctune.topology/1
// holds it. A node read from JSON keeps the block as its writer wrote it: results are judged
// against the limits the cctune that measured them derived, which a file's raw fields need not
// give again (a fixture, or a field this build reads differently).
struct GpuDerived {
  int index = 0;
  std::vector<std::string> nearest_nics;  // RDMA devices at the GPU's closest distance
  double nvlink_GBps = 0;                 // per direction; 0: none or unknown
  double pcie_GBps = 0;
  bool operator==(const GpuDerived&) const = default;
};
struct NicDerived {
  std::string name;
  double port_GBps = 0;  // fastest ACTIVE port; 0: none
  double pcie_GBps = 0;
  bool operator==(const NicDerived&) const = default;
};
struct NodeDerived {
  std::vector<GpuDerived> gpus;
  std::vector<NicDerived> nics;
  bool operator==(const NodeDerived&) const = default;
};

struct NodeTopology {
  std::string hostname;
  std::string source;               // "live" or where a fixture came from
  CpuInfo cpu;
  std::vector<NumaNode> numa_nodes;
  std::vector<Gpu> gpus;
  std::vector<Nic> nics;
  std::vector<NetInterface> net_interfaces;
  Software software;
  std::vector<Absence> absences;
  // Read from JSON that holds the block; nullopt for a probed node (to_json derives it afresh
  // from the fields above) and for JSON without one.
  std::optional<NodeDerived> derived;
};

struct NodeGroup {
  std::string fingerprint;
  std::vector<std::string> hosts;
};

struct TopologyWarning {
  std::string node;                 // host name
  std::string item;                 // "GPU 3", "mlx5_2 port 1", "driver"
  std::string message;
};

// A whole cluster (a single node is a cluster of one).
struct Topology {
  std::vector<NodeTopology> nodes;
  std::vector<NodeGroup> groups;
  std::vector<TopologyWarning> warnings;
};

// "00000000:1B:00.0" (NVML), "0000:1b:00.0" (sysfs) -> "0000:1b:00.0".
std::string normalize_pci_bus_id(const std::string& bus_id);

}  // namespace cctune::topo
