#include "topology/rdma_probe.hpp"

#include <infiniband/verbs.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>

#include "topology/shaped_rate.hpp"

namespace cctune::topo {

namespace fs = std::filesystem;

namespace {

std::string read_line(const fs::path& p) {
  std::ifstream in(p);
  std::string s;
  if (in) std::getline(in, s);
  return s;
}

// Last path component of a symlink target, e.g. .../0000:1b:00.0 for <dev>/device.
std::string link_basename(const fs::path& p) {
  std::error_code ec;
  fs::path target = fs::canonical(p, ec);
  return ec ? std::string() : target.filename().string();
}

bool looks_like_pci(const std::string& s) {
  return s.size() >= 12 && s[4] == ':' && s[7] == ':' && s[10] == '.';
}

std::string port_state(ibv_port_state s) {
  switch (s) {
    case IBV_PORT_NOP: return "NOP";
    case IBV_PORT_DOWN: return "DOWN";
    case IBV_PORT_INIT: return "INIT";
    case IBV_PORT_ARMED: return "ARMED";
    case IBV_PORT_ACTIVE: return "ACTIVE";
    case IBV_PORT_ACTIVE_DEFER: return "ACTIVE_DEFER";
  }
  return "UNKNOWN";
}

std::string gid_text(const ibv_gid& gid) {
  char buf[48];
  const uint8_t* r = gid.raw;
  std::snprintf(buf, sizeof buf, "%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x",
                r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11], r[12], r[13],
                r[14], r[15]);
  return buf;
}

struct DeviceListDeleter {
  void operator()(ibv_device** l) const noexcept { ibv_free_device_list(l); }
};
struct ContextCloser {
  void operator()(ibv_context* c) const noexcept { ibv_close_device(c); }
};

// Netdevs of the device's PCI function, by port (dev_port is 0-based).
std::string netdev_for_port(const std::string& dev, int port) {
  std::error_code ec;
  fs::path dir = fs::path("/sys/class/infiniband") / dev / "device" / "net";
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    std::string dev_port = read_line(e.path() / "dev_port");
    int p = dev_port.empty() ? 0 : std::atoi(dev_port.c_str());
    if (p + 1 == port) return e.path().filename().string();
  }
  return {};
}

Nic read_nic(ibv_device* device) {
  Nic nic;
  nic.name = ibv_get_device_name(device);
  std::string pci = link_basename(fs::path("/sys/class/infiniband") / nic.name / "device");
  if (looks_like_pci(pci)) nic.pci_bus_id = normalize_pci_bus_id(pci);
  std::unique_ptr<ibv_context, ContextCloser> ctx(ibv_open_device(device));
  if (!ctx) return nic;
  ibv_device_attr attr{};
  if (ibv_query_device(ctx.get(), &attr) != 0) return nic;
  for (int port = 1; port <= attr.phys_port_cnt; ++port) {
    ibv_port_attr pa{};
    if (ibv_query_port(ctx.get(), static_cast<uint8_t>(port), &pa) != 0) continue;
    IbPort p;
    p.port = port;
    p.state = port_state(pa.state);
    p.link_layer = pa.link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet" : "InfiniBand";
    p.width_lanes = ib_width_lanes(pa.active_width);
    p.lane_Gbps = ib_lane_Gbps(pa.active_speed);
    p.rate_Gbps = p.width_lanes * p.lane_Gbps;
    p.netdev = netdev_for_port(nic.name, port);
    fs::path types = fs::path("/sys/class/infiniband") / nic.name / "ports" / std::to_string(port) / "gid_attrs" / "types";
    for (int i = 0; i < std::min(pa.gid_tbl_len, 16); ++i) {
      ibv_gid gid{};
      if (ibv_query_gid(ctx.get(), static_cast<uint8_t>(port), i, &gid) != 0) continue;
      if (std::all_of(std::begin(gid.raw), std::end(gid.raw), [](uint8_t b) { return b == 0; })) continue;
      p.gids.push_back({i, gid_text(gid), read_line(types / std::to_string(i))});
    }
    nic.ports.push_back(p);
  }
  return nic;
}

}  // namespace

int ib_width_lanes(int w) {
  switch (w) {
    case 1: return 1;
    case 2: return 4;
    case 4: return 8;
    case 8: return 12;
    case 16: return 2;
    default: return 0;
  }
}

double ib_lane_Gbps(int s) {
  switch (s) {
    case 1: return 2.5;     // SDR
    case 2: return 5.0;     // DDR
    case 4: return 10.0;    // QDR
    case 8: return 10.0;    // FDR10
    case 16: return 14.0;   // FDR
    case 32: return 25.0;   // EDR
    case 64: return 50.0;   // HDR
    case 128: return 100.0; // NDR
    default: return 0.0;
  }
}

RdmaFacts probe_rdma() {
  RdmaFacts f;
  int n = 0;
  errno = 0;
  std::unique_ptr<ibv_device*, DeviceListDeleter> list(ibv_get_device_list(&n));
  if (!list) {
    f.absent_reason = std::string("ibv_get_device_list failed: ") + std::strerror(errno) +
                      " (no RDMA kernel support on this node)";
    return f;
  }
  if (n == 0) {
    std::error_code ec;
    f.absent_reason = fs::exists("/sys/class/infiniband", ec)
                          ? "ibverbs found 0 RDMA devices (is the provider library, e.g. libmlx5, installed?)"
                          : "no RDMA device: ibverbs found 0 devices and /sys/class/infiniband does not exist";
    return f;
  }
  for (int i = 0; i < n; ++i) f.nics.push_back(read_nic(list.get()[i]));
  // mlx5_2 before mlx5_10: NIC numbers in the matrix follow the device numbers.
  auto key = [](const std::string& s) {
    auto d = s.find_last_not_of("0123456789") + 1;
    return std::make_pair(s.substr(0, d), d < s.size() ? std::stoul(s.substr(d)) : 0UL);
  };
  std::sort(f.nics.begin(), f.nics.end(), [&](auto& a, auto& b) { return key(a.name) < key(b.name); });
  return f;
}

std::vector<NetInterface> probe_net_interfaces(const std::string& sysfs_net) {
  std::vector<NetInterface> out;
  // The shapers are the live machine's: only a live sysfs is matched against them.
  const auto shaped = sysfs_net == "/sys/class/net" ? shaped_rates_Gbps() : std::map<std::string, double>{};
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(sysfs_net, ec)) {
    NetInterface i;
    i.name = e.path().filename().string();
    if (i.name == "lo") continue;
    i.operstate = read_line(e.path() / "operstate");
    i.mac = read_line(e.path() / "address");
    std::string mtu = read_line(e.path() / "mtu");
    i.mtu = mtu.empty() ? 0 : std::atoi(mtu.c_str());
    // speed is Mb/s; reading it fails (EINVAL) or gives -1 when the link is down or virtual.
    std::string speed = read_line(e.path() / "speed");
    long mbps = speed.empty() ? 0 : std::atol(speed.c_str());
    i.speed_Gbps = mbps > 0 ? mbps / 1000.0 : 0.0;
    if (const auto r = shaped.find(i.name); r != shaped.end()) i.shaped_Gbps = r->second;
    std::string pci = link_basename(e.path() / "device");
    i.is_virtual = pci.empty();
    if (looks_like_pci(pci)) i.pci_bus_id = normalize_pci_bus_id(pci);
    for (const auto& r : fs::directory_iterator(e.path() / "device" / "infiniband", ec))
      i.rdma_device = r.path().filename().string();
    ec.clear();
    out.push_back(i);
  }
  std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.name < b.name; });
  return out;
}

}  // namespace cctune::topo
