#pragma once
// hwloc probe: CPUs, NUMA nodes and the PCI tree, from this machine or an hwloc XML file
// (`lstopo --of xml`). Output is plain data; hwloc handles stay inside hwloc_probe.cpp.
#include <map>
#include <string>
#include <vector>

#include "topology/topology.hpp"

namespace cctune::topo {

struct OsDevice {
  std::string name;        // "eth0", "mlx5_0", "ibp24s0"
  std::string type;        // "network", "openfabrics", "gpu", "coproc", "block", "dma"
  std::string pci_bus_id;  // of the PCI device it belongs to; empty when none
};

struct HwlocFacts {
  CpuInfo cpu;
  std::vector<NumaNode> numa_nodes;
  std::string version;                          // hwloc library version
  std::string kernel;                           // OSRelease, when hwloc knows it
  std::string hostname;                         // HostName, when hwloc knows it
  std::map<std::string, PciPlacement> placements;  // every PCI device, by normalised bus id
  std::vector<std::string> nvidia_gpus;         // bus ids of NVIDIA 3D/VGA controllers
  std::vector<OsDevice> os_devices;
};

HwlocFacts read_hwloc_system();
// Throws UsageError naming the file when it is missing, truncated or not hwloc XML.
HwlocFacts read_hwloc_xml(const std::string& path);

// Binds the calling process to the CPUs of `cpuset` (hwloc list form, "0-23,48-71")
// with hwloc_set_cpubind. Throws EnvironmentError when the OS refuses.
void bind_process_to_cpuset(const std::string& cpuset);
// The calling process's current CPU binding, hwloc list form.
std::string current_cpu_binding();

}  // namespace cctune::topo
