#pragma once
// ibverbs probe (RDMA devices, ports, state, link layer, rate, GIDs) plus sysfs for the
// netdev behind each port and for plain network interfaces with their speed.
#include <string>
#include <vector>

#include "topology/topology.hpp"

namespace cctune::topo {

struct RdmaFacts {
  std::vector<Nic> nics;           // placement left empty: the hwloc probe fills it
  std::string absent_reason;       // non-empty when no RDMA device is usable
};

// Never throws for a missing device: that is reported in absent_reason.
RdmaFacts probe_rdma();

// Every interface in /sys/class/net except loopback.
std::vector<NetInterface> probe_net_interfaces(const std::string& sysfs_net = "/sys/class/net");

// ibverbs enum values -> numbers: active_width -> lanes, active_speed -> Gb/s per lane.
int ib_width_lanes(int active_width);
double ib_lane_Gbps(int active_speed);

}  // namespace cctune::topo
