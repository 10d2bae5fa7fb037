#pragma once
// RDMA ports as the probe needs them: which exist and are active, their link layer,
// LID (InfiniBand) or GID (RoCE, v2 first), rate and NUMA node. No ibverbs types leak
// out of this header so the probe engine can decide "ib or tcp" without them.
#include <cstdint>
#include <string>
#include <vector>

namespace cctune::net::ib {

struct PortInfo {
  std::string device;      // e.g. mlx5_0
  int port = 1;
  bool ethernet = false;   // RoCE; else InfiniBand
  std::uint16_t lid = 0;   // InfiniBand only
  int gid_index = -1;      // RoCE: chosen GID (RoCE v2 with IPv4 first); IB: 0 when the port has GIDs
  std::string gid_type;    // "IB", "RoCE v1", "RoCE v2"
  int active_mtu = 0;      // bytes
  double rate_Gbps = 0;    // nominal port rate (lanes x lane speed), as ibstat prints
  int numa_node = -1;      // /sys/class/infiniband/<dev>/device/numa_node
};

// Active ports of all RDMA devices; empty when there is none (or no provider).
std::vector<PortInfo> active_ports();

// Nominal rate from ibv_port_attr's active_width and active_speed codes; 0 if unknown.
double port_rate_Gbps(int active_width_code, int active_speed_code);

// "mlx5_0" or "mlx5_0:1"; empty `spec` picks ports[local_index % ports.size()].
// Throws UsageError when `spec` names no active port.
const PortInfo& choose_port(const std::vector<PortInfo>& ports, const std::string& spec, int local_index);

}  // namespace cctune::net::ib
