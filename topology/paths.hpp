#pragma once
// Derived facts about paths inside one node: the classes `nvidia-smi topo -m` prints
// (X, NV#, PIX, PXB, PHB, NODE, SYS, same meanings), the nearest NICs of each GPU, and
// the physical limit of each path. Pure functions of NodeTopology.
#include <string>
#include <vector>

#include "topology/topology.hpp"

namespace cctune::topo {

// Ordered from closest to farthest; NV is closer than any PCIe path.
enum class PathClass { X, NV, PIX, PXB, PHB, NODE, SYS };

std::string to_string(PathClass c);

struct Path {
  PathClass cls = PathClass::SYS;
  int nvlinks = 0;                   // for NV: number of links ("NV18")
  std::string label() const;         // "X", "NV18", "PIX", ...
};

// PCIe placement alone (no NVLink): PIX, PXB, PHB, NODE or SYS.
PathClass pci_path_class(const PciPlacement& a, const PciPlacement& b);

// NVLinks usable between two GPUs: direct links to the peer plus, when both reach
// NVSwitches, the smaller of their switch link counts (what nvidia-smi prints as NV#).
int nvlinks_between(const Gpu& a, const Gpu& b);

Path gpu_gpu_path(const Gpu& a, const Gpu& b);
Path gpu_nic_path(const Gpu& g, const Nic& n);
Path nic_nic_path(const Nic& a, const Nic& b);

// Endpoints of the matrix: GPUs first ("GPU0".."GPUn"), then NICs ("NIC0"..).
struct PathMatrix {
  std::vector<std::string> names;
  std::vector<std::vector<Path>> paths;  // [row][col]
  int gpu_count = 0;
};
PathMatrix path_matrix(const NodeTopology& node);

// Bandwidth limits, GB/s per direction (GB = 1e9 bytes); 0 means unknown.
double pcie_lane_GBps(int generation);                   // after line encoding
double gpu_pcie_GBps(const Gpu& g);                      // current gen x width
double gpu_nvlink_GBps(const Gpu& g);                    // active links x per-link speed
double port_GBps(const IbPort& p);                       // rate_Gbps / 8
double nic_GBps(const Nic& n);                           // fastest ACTIVE port
double gpu_gpu_limit_GBps(const Gpu& a, const Gpu& b);   // NVLink if any, else PCIe
double gpu_nic_limit_GBps(const Gpu& g, const Nic& n);   // min(GPU PCIe, NIC PCIe, port)

// What a link carries, Gb/s: the lower of the nominal speed and a tc shaper's rate, either one
// when the other is unknown (0); 0 when neither is known. A virtual interface's speed is no limit
// (a veth reports 10 Gb/s and moves what memory moves): a shaper's rate is what it carries.
double effective_Gbps(double speed_Gbps, double shaped_Gbps, bool is_virtual = false);
double ip_link_Gbps(const NetInterface& i);  // effective_Gbps of its fields
// The node's ways out over IP, fastest first: its physical interfaces that are up (a docker0 or a
// container's veth is no way out), or where it has none its virtual ones (a VM's; a one-box
// cluster host's veths, docs/LAUNCHING.md); never lo.
std::vector<const NetInterface*> ip_links(const NodeTopology& node);

// The NICs closest to a GPU (best PCIe class), preferring NICs with an ACTIVE port.
// Names in NIC order; empty when the node has no NIC.
std::vector<std::string> nearest_nics(const NodeTopology& node, const Gpu& g);

// The node's derived values as this build computes them from its fields (what to_json writes).
NodeDerived derive(const NodeTopology& node);

// Finds a GPU by index ("3") or PCI bus id (any spelling); nullptr when absent.
const Gpu* find_gpu(const NodeTopology& node, const std::string& index_or_bus_id);

}  // namespace cctune::topo
