#include "topology/shaped_rate.hpp"

#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

namespace cctune::topo {
namespace {

// A tbf's rate from its TCA_OPTIONS: TCA_TBF_RATE64 when the rate needs 64 bits (from 2^32
// bytes/s, about 34 Gb/s), else the 32-bit rate of TCA_TBF_PARMS. Bytes per second; 0: none.
std::uint64_t tbf_rate_Bps(const rtattr* options) {
  std::uint64_t rate32 = 0, rate64 = 0;
  int len = static_cast<int>(RTA_PAYLOAD(options));
  for (auto* a = static_cast<const rtattr*>(RTA_DATA(options)); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
    if (a->rta_type == TCA_TBF_PARMS && RTA_PAYLOAD(a) >= sizeof(tc_tbf_qopt)) {
      tc_tbf_qopt q;
      std::memcpy(&q, RTA_DATA(a), sizeof q);
      rate32 = q.rate.rate;
    } else if (a->rta_type == TCA_TBF_RATE64 && RTA_PAYLOAD(a) >= sizeof(std::uint64_t)) {
      std::memcpy(&rate64, RTA_DATA(a), sizeof rate64);
    }
  }
  return rate64 ? rate64 : rate32;
}

void note_qdisc(const nlmsghdr* nh, std::map<int, double>& out) {
  if (nh->nlmsg_type != RTM_NEWQDISC || nh->nlmsg_len < NLMSG_LENGTH(sizeof(tcmsg))) return;
  const auto* tc = static_cast<const tcmsg*>(NLMSG_DATA(nh));
  int len = static_cast<int>(nh->nlmsg_len - NLMSG_LENGTH(sizeof(tcmsg)));
  bool is_tbf = false;
  const rtattr* options = nullptr;
  for (auto* a = reinterpret_cast<const rtattr*>(reinterpret_cast<const char*>(tc) + NLMSG_ALIGN(sizeof(tcmsg))); RTA_OK(a, len);
       a = RTA_NEXT(a, len)) {
    if (a->rta_type == TCA_KIND) is_tbf = std::strncmp(static_cast<const char*>(RTA_DATA(a)), "tbf", RTA_PAYLOAD(a)) == 0;
    if (a->rta_type == TCA_OPTIONS) options = a;
  }
  if (!is_tbf || !options) return;
  const std::uint64_t bytes_per_s = tbf_rate_Bps(options);
  if (bytes_per_s == 0) return;
  const double gbps = static_cast<double>(bytes_per_s) * 8 / 1e9;
  auto [it, fresh] = out.emplace(tc->tcm_ifindex, gbps);
  if (!fresh) it->second = std::min(it->second, gbps);
}

// Sends one RTM_GETQDISC dump request and returns the answer's bytes (empty on any failure).
std::vector<std::uint8_t> dump_qdiscs() {
  const int fd = ::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
  if (fd < 0) return {};
  struct {
    nlmsghdr nh;
    tcmsg tc;
  } req{};
  req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(tcmsg));
  req.nh.nlmsg_type = RTM_GETQDISC;
  req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  req.nh.nlmsg_seq = 1;
  req.tc.tcm_family = AF_UNSPEC;
  std::vector<std::uint8_t> out;
  timeval tv{2, 0};  // a kernel answers at once; never hang a topology probe on it
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  if (::send(fd, &req, req.nh.nlmsg_len, 0) == static_cast<ssize_t>(req.nh.nlmsg_len)) {
    std::vector<std::uint8_t> buf(64 * 1024);
    for (bool done = false; !done;) {
      const ssize_t n = ::recv(fd, buf.data(), buf.size(), 0);
      if (n <= 0) { out.clear(); break; }
      out.insert(out.end(), buf.begin(), buf.begin() + n);
      int len = static_cast<int>(n);
      for (auto* nh = reinterpret_cast<const nlmsghdr*>(buf.data()); NLMSG_OK(nh, len); nh = NLMSG_NEXT(nh, len))
        if (nh->nlmsg_type == NLMSG_DONE || nh->nlmsg_type == NLMSG_ERROR) done = true;
    }
  }
  ::close(fd);
  return out;
}

}  // namespace

std::map<int, double> tbf_rates_from_dump(const std::vector<std::uint8_t>& dump) {
  std::map<int, double> out;
  int len = static_cast<int>(dump.size());
  for (auto* nh = reinterpret_cast<const nlmsghdr*>(dump.data()); NLMSG_OK(nh, len); nh = NLMSG_NEXT(nh, len)) {
    if (nh->nlmsg_type == NLMSG_DONE) break;
    note_qdisc(nh, out);
  }
  return out;
}

std::map<std::string, double> shaped_rates_Gbps() {
  std::map<std::string, double> out;
  for (const auto& [index, gbps] : tbf_rates_from_dump(dump_qdiscs())) {
    char name[IF_NAMESIZE] = {};
    if (::if_indextoname(static_cast<unsigned>(index), name)) out[name] = gbps;
  }
  return out;
}

}  // namespace cctune::topo
