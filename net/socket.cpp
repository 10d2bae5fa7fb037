#include "net/socket.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "core/error.hpp"
#include "topology/shaped_rate.hpp"

namespace cctune::net {

Fd& Fd::operator=(Fd&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.release();
  }
  return *this;
}

Fd::~Fd() {
  if (fd_ >= 0) ::close(fd_);
}

namespace {

std::string errno_text() { return std::strerror(errno); }

double sysfs_speed_Gbps(const std::string& ifname) {
  std::ifstream in("/sys/class/net/" + ifname + "/speed");
  long mbps = -1;
  if (in >> mbps && mbps > 0) return static_cast<double>(mbps) / 1000.0;
  return 0;
}

// What the interface carries: its speed, or a tc shaper's lower rate on it.
double link_rate_Gbps(const std::string& ifname, const std::map<std::string, double>& shaped) {
  const auto r = shaped.find(ifname);
  std::error_code ec;  // no device behind it: a virtual interface (veth, bridge, bond)
  const bool is_virtual = !std::filesystem::exists("/sys/class/net/" + ifname + "/device", ec);
  return topo::effective_Gbps(sysfs_speed_Gbps(ifname), r == shaped.end() ? 0.0 : r->second, is_virtual);
}

bool starts_with(const std::string& s, const std::string& p) { return s.compare(0, p.size(), p) == 0; }

// One NCCL_SOCKET_IFNAME-style filter.
struct IfFilter {
  bool exclude = false;
  bool exact = false;
  std::vector<std::string> names;
  bool matches(const std::string& ifname) const {
    for (const auto& n : names)
      if (exact ? ifname == n : starts_with(ifname, n)) return true;
    return false;
  }
  bool accepts(const std::string& ifname) const { return exclude != matches(ifname); }
};

IfFilter parse_filter(std::string spec) {
  IfFilter f;
  if (!spec.empty() && spec[0] == '^') { f.exclude = true; spec.erase(0, 1); }
  if (!spec.empty() && spec[0] == '=') { f.exact = true; spec.erase(0, 1); }
  std::size_t pos = 0;
  while (pos <= spec.size()) {
    const auto comma = spec.find(',', pos);
    const auto item = spec.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    if (!item.empty()) f.names.push_back(item);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return f;
}

}  // namespace

std::vector<Interface> list_ipv4_interfaces() {
  ifaddrs* head = nullptr;
  if (getifaddrs(&head) != 0) throw EnvironmentError("getifaddrs failed: " + errno_text());
  std::vector<Interface> out;
  const auto shaped = topo::shaped_rates_Gbps();
  for (ifaddrs* a = head; a; a = a->ifa_next) {
    if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET || !(a->ifa_flags & IFF_UP)) continue;
    char buf[INET_ADDRSTRLEN] = {};
    inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(a->ifa_addr)->sin_addr, buf, sizeof buf);
    out.push_back({a->ifa_name, buf, link_rate_Gbps(a->ifa_name, shaped)});
  }
  freeifaddrs(head);
  return out;
}

Interface select_interface(const std::string& spec, const std::string& spec_source) {
  const auto all = list_ipv4_interfaces();
  std::string present;
  for (const auto& i : all) present += (present.empty() ? "" : ", ") + i.name;
  if (!spec.empty()) {
    const auto f = parse_filter(spec);
    for (const auto& i : all)
      if (f.accepts(i.name)) return i;
    throw UsageError("no IPv4 interface that is up matches " + spec_source + "=" + spec +
                         " (interfaces here: " + (present.empty() ? "none" : present) + ")",
                     "name one of them with --socket-ifname");
  }
  // NCCL's default: skip loopback and docker bridges, prefer IPoIB.
  const IfFilter skip = parse_filter("docker,lo");
  for (const auto& i : all)
    if (starts_with(i.name, "ib")) return i;
  for (const auto& i : all)
    if (!skip.matches(i.name)) return i;
  for (const auto& i : all)
    if (starts_with(i.name, "lo")) return i;
  throw EnvironmentError("no IPv4 interface is up", "bring a network interface up or set --socket-ifname");
}

Fd listen_tcp(const std::string& ip, int& port) {
  Fd s(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!s) throw EnvironmentError("socket() failed: " + errno_text());
  int one = 1;
  ::setsockopt(s.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = 0;
  if (inet_pton(AF_INET, ip.c_str(), &addr.sin_addr) != 1) throw UsageError("bad IPv4 address '" + ip + "'");
  if (::bind(s.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
    throw EnvironmentError("cannot bind a TCP socket to " + ip + ": " + errno_text());
  if (::listen(s.get(), 16) != 0) throw EnvironmentError("listen() failed: " + errno_text());
  socklen_t len = sizeof addr;
  ::getsockname(s.get(), reinterpret_cast<sockaddr*>(&addr), &len);
  port = ntohs(addr.sin_port);
  return s;
}

Fd accept_tcp(const Fd& listener, std::chrono::milliseconds timeout) {
  pollfd p{listener.get(), POLLIN, 0};
  const int r = ::poll(&p, 1, static_cast<int>(timeout.count()));
  if (r == 0)
    throw RuntimeFailure("no connection from the peer rank within " + std::to_string(timeout.count() / 1000) + " s",
                         "check that the ranks can reach each other on the chosen interface (--socket-ifname)");
  if (r < 0) throw RuntimeFailure("poll() on the listening socket failed: " + errno_text());
  Fd c(::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
  if (!c) throw RuntimeFailure("accept() failed: " + errno_text());
  return c;
}

Fd connect_tcp(const std::string& ip, int port, std::chrono::milliseconds timeout, const StopCheck& stop) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  if (inet_pton(AF_INET, ip.c_str(), &addr.sin_addr) != 1) throw UsageError("bad IPv4 address '" + ip + "'");
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string last_error;
  while (std::chrono::steady_clock::now() < deadline) {
    Fd s(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!s) throw EnvironmentError("socket() failed: " + errno_text());
    if (::connect(s.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) return s;
    last_error = errno_text();
    throw_if_stopped(stop);  // a signal also cuts a blocked connect() short (EINTR)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  throw RuntimeFailure("cannot connect to " + ip + ":" + std::to_string(port) + " (" + last_error + ")",
                       "check routes and firewalls between the ranks on the chosen interface (--socket-ifname)");
}

void configure_stream(const Fd& s, std::chrono::milliseconds timeout) {
  int one = 1;
  ::setsockopt(s.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(timeout.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((timeout.count() % 1000) * 1000);
  ::setsockopt(s.get(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(s.get(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

namespace {

// Waits until `fd` is ready for `events`, asking `stop` every 100 ms, for at most the socket's
// own timeout (`timeout_opt`: SO_RCVTIMEO or SO_SNDTIMEO; none set: no limit). A blocked
// send or recv is not enough: the stop signal may be delivered to another thread (MPI's
// progress threads), and then nothing interrupts the call.
void wait_ready(int fd, short events, int timeout_opt, const char* what, const StopCheck& stop) {
  if (!stop) return;
  timeval tv{};
  socklen_t len = sizeof tv;
  const bool limited = ::getsockopt(fd, SOL_SOCKET, timeout_opt, &tv, &len) == 0 && (tv.tv_sec > 0 || tv.tv_usec > 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(tv.tv_sec) + std::chrono::microseconds(tv.tv_usec);
  for (;;) {
    throw_if_stopped(stop);
    pollfd p{fd, events, 0};
    const int ready = ::poll(&p, 1, 100);
    if (ready > 0 || (ready < 0 && errno != EINTR)) return;  // ready, or an error the call itself reports
    if (limited && std::chrono::steady_clock::now() >= deadline)
      throw RuntimeFailure(std::string("TCP ") + what + " the peer rank timed out");
  }
}

// Moves all `n` bytes, `step(offset, left, flags)` being one send() or recv() on `fd`; retries
// after a signal. `what` names the direction in errors: "send to", "receive from". With a stop
// check, calls do not block (MSG_DONTWAIT): when one would, wait_ready waits in slices, so the
// fast path stays one system call per transfer.
template <class Step>
void transfer_all(int fd, bool sending, std::size_t n, const char* what, const StopCheck& stop, Step step) {
  std::size_t done = 0;
  throw_if_stopped(stop);
  while (done < n) {
    const ssize_t k = step(done, n - done, stop ? MSG_DONTWAIT : 0);
    if (k < 0 && stop && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      wait_ready(fd, sending ? POLLOUT : POLLIN, sending ? SO_SNDTIMEO : SO_RCVTIMEO, what, stop);
      continue;
    }
    if (k == 0) throw RuntimeFailure("the peer rank closed the TCP connection");
    if (k < 0) {
      // The signal a stop request comes with interrupts the blocked call (send and receive
      // timeouts are set, so it is not restarted): that is when to ask.
      if (errno == EINTR) {
        throw_if_stopped(stop);
        continue;
      }
      if (errno == EAGAIN || errno == EWOULDBLOCK) throw RuntimeFailure(std::string("TCP ") + what + " the peer rank timed out");
      throw RuntimeFailure(std::string("TCP ") + what + " the peer rank failed: " + errno_text());
    }
    done += static_cast<std::size_t>(k);
  }
}

}  // namespace

void throw_if_stopped(const StopCheck& stop) {
  if (stop && stop()) throw RuntimeFailure("stopped by a signal");
}

void send_all(const Fd& s, const void* data, std::size_t n, const StopCheck& stop) {
  const auto* p = static_cast<const char*>(data);
  transfer_all(s.get(), true, n, "send to", stop, [&](std::size_t offset, std::size_t left, int flags) {
    return ::send(s.get(), p + offset, left, MSG_NOSIGNAL | flags);
  });
}

void recv_all(const Fd& s, void* data, std::size_t n, const StopCheck& stop) {
  auto* p = static_cast<char*>(data);
  transfer_all(s.get(), false, n, "receive from", stop, [&](std::size_t offset, std::size_t left, int flags) {
    return ::recv(s.get(), p + offset, left, flags);
  });
}

}  // namespace cctune::net
