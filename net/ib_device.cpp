#include "net/ib_device.hpp"

#include <infiniband/verbs.h>

#include <arpa/inet.h>
#include <cstring>
#include <fstream>

#include "core/error.hpp"
#include "net/ib_handles.hpp"

namespace cctune::net::ib {

double port_rate_Gbps(int width_code, int speed_code) {
  int lanes = 0;
  switch (width_code) {
    case 1: lanes = 1; break;
    case 2: lanes = 4; break;
    case 4: lanes = 8; break;
    case 8: lanes = 12; break;
    case 16: lanes = 2; break;
    default: return 0;
  }
  double lane = 0;
  switch (speed_code) {
    case 1: lane = 2.5; break;    // SDR
    case 2: lane = 5; break;      // DDR
    case 4: lane = 10; break;     // QDR
    case 8: lane = 10; break;     // FDR10
    case 16: lane = 14; break;    // FDR
    case 32: lane = 25; break;    // EDR
    case 64: lane = 50; break;    // HDR
    case 128: lane = 100; break;  // NDR
    default: return 0;
  }
  return lanes * lane;
}

namespace {

int read_numa_node(const std::string& device) {
  std::ifstream in("/sys/class/infiniband/" + device + "/device/numa_node");
  int node = -1;
  in >> node;
  return node;
}

// RoCE: NCCL and perftest prefer a RoCE v2 GID carrying an IPv4 address (::ffff:a.b.c.d),
// then any RoCE v2, then RoCE v1. ibv_query_gid_table (rdma-core >= 32) gives the types.
void choose_gid(ibv_context* ctx, PortInfo& p) {
  ibv_gid_entry entries[256];
  const ssize_t n = ibv_query_gid_table(ctx, entries, 256, 0);
  int best = -1, best_score = -1;
  for (ssize_t i = 0; i < n; ++i) {
    const auto& e = entries[i];
    if (e.port_num != static_cast<std::uint32_t>(p.port)) continue;
    const auto* raw = e.gid.raw;
    static const unsigned char v4_prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    const bool v4 = std::memcmp(raw, v4_prefix, 12) == 0;
    int score = 0;
    if (e.gid_type == IBV_GID_TYPE_ROCE_V2) score = v4 ? 3 : 2;
    else if (e.gid_type == IBV_GID_TYPE_ROCE_V1) score = 1;
    else score = 0;  // IBV_GID_TYPE_IB
    if (score > best_score) { best_score = score; best = static_cast<int>(e.gid_index); }
  }
  p.gid_index = best;
  p.gid_type = best_score >= 2 ? "RoCE v2" : best_score == 1 ? "RoCE v1" : "IB";
}

}  // namespace

std::vector<PortInfo> active_ports() {
  int count = 0;
  auto list = get_device_list(count);
  std::vector<PortInfo> out;
  for (int d = 0; d < count; ++d) {
    Context ctx(ibv_open_device(list.get()[d]));
    if (!ctx) continue;
    ibv_device_attr dev_attr{};
    if (ibv_query_device(ctx.get(), &dev_attr) != 0) continue;
    for (int port = 1; port <= dev_attr.phys_port_cnt; ++port) {
      ibv_port_attr pa{};
      if (ibv_query_port(ctx.get(), static_cast<std::uint8_t>(port), &pa) != 0) continue;
      if (pa.state != IBV_PORT_ACTIVE) continue;
      PortInfo p;
      p.device = ibv_get_device_name(list.get()[d]);
      p.port = port;
      p.ethernet = pa.link_layer == IBV_LINK_LAYER_ETHERNET;
      p.lid = pa.lid;
      p.active_mtu = 128 << static_cast<int>(pa.active_mtu);  // IBV_MTU_256 == 1
      p.rate_Gbps = port_rate_Gbps(pa.active_width, pa.active_speed);
      p.numa_node = read_numa_node(p.device);
      if (p.ethernet) {
        choose_gid(ctx.get(), p);
        if (p.gid_index < 0) continue;  // RoCE without a GID cannot be addressed
      } else {
        p.gid_index = pa.gid_tbl_len > 0 ? 0 : -1;
        p.gid_type = "IB";
      }
      out.push_back(p);
    }
  }
  return out;
}

const PortInfo& choose_port(const std::vector<PortInfo>& ports, const std::string& spec, int local_index) {
  if (ports.empty()) throw EnvironmentError("no active RDMA port", "use --probe tcp");
  if (spec.empty()) return ports[static_cast<std::size_t>(local_index) % ports.size()];
  const auto colon = spec.find(':');
  const std::string name = spec.substr(0, colon);
  const int port = colon == std::string::npos ? -1 : std::stoi(spec.substr(colon + 1));
  for (const auto& p : ports)
    if (p.device == name && (port < 0 || p.port == port)) return p;
  std::string present;
  for (const auto& p : ports) present += (present.empty() ? "" : ", ") + p.device + ":" + std::to_string(p.port);
  throw UsageError("no active RDMA port matches --ib-dev " + spec + " (active here: " + present + ")");
}

}  // namespace cctune::net::ib
