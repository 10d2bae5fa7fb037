#pragma once
// TCP plumbing for the fallback probe: an owned descriptor, the interface NCCL would
// pick, and blocking transfers that give up after a timeout instead of hanging.
#include <chrono>
#include <functional>
#include <cstddef>
#include <string>
#include <vector>

namespace cctune::net {

// Move-only owner of a file descriptor; closes it, never throws.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(o.release()) {}
  Fd& operator=(Fd&& o) noexcept;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd();
  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  int release() noexcept { int f = fd_; fd_ = -1; return f; }

 private:
  int fd_ = -1;
};

struct Interface {
  std::string name;
  std::string ipv4;   // dotted quad
  double speed_Gbps = 0;  // /sys/class/net/<if>/speed, or a tc tbf's lower rate on it; 0: unknown
};

// IPv4 interfaces that are up, in getifaddrs order.
std::vector<Interface> list_ipv4_interfaces();

// NCCL_SOCKET_IFNAME syntax: comma-separated prefixes; "^" excludes; "=" matches exactly.
// `spec` empty: NCCL's default (any interface but lo and docker*, ib* first; lo when
// nothing else is up). `spec` given but matching nothing: UsageError naming what exists.
Interface select_interface(const std::string& spec, const std::string& spec_source);

// Listens on ip:0; returns the socket and fills `port`.
Fd listen_tcp(const std::string& ip, int& port);
// Waits at most `timeout` for one connection.
Fd accept_tcp(const Fd& listener, std::chrono::milliseconds timeout);
// Sets TCP_NODELAY and send/receive timeouts so a dead peer surfaces as an error.
void configure_stream(const Fd& s, std::chrono::milliseconds timeout);

// Asked when a wait is cut short by a signal (SIGINT/SIGTERM): true ends the wait with a
// RuntimeFailure. Empty: waits resume after signals.
using StopCheck = std::function<bool()>;

// Connects, retrying until `timeout` (the peer may still be starting to listen) or a stop
// request: a stalled peer's listener would otherwise hold a stopped run for the timeout.
Fd connect_tcp(const std::string& ip, int port, std::chrono::milliseconds timeout, const StopCheck& stop = {});

// Whole-buffer transfers; throw RuntimeFailure on error, timeout, peer close or a stop request.
void send_all(const Fd& s, const void* data, std::size_t n, const StopCheck& stop = {});
void recv_all(const Fd& s, void* data, std::size_t n, const StopCheck& stop = {});
// Throws the RuntimeFailure of a stop request when `stop` says there is one.
void throw_if_stopped(const StopCheck& stop);

}  // namespace cctune::net
