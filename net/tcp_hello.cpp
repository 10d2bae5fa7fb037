#include "net/tcp_hello.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <vector>

#include "core/error.hpp"

namespace cctune::net {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t token_bytes = 16;
constexpr std::size_t hello_bytes = 2 * token_bytes + sizeof(std::int32_t);
// Connections waiting for their hello at once; beyond it the oldest is dropped.
constexpr std::size_t max_pending = 64;
// How long one connection may take to say hello (a real initiator sends it at once).
constexpr auto hello_timeout = std::chrono::seconds(2);

struct Pending {
  Fd conn;
  std::string bytes;
  Clock::time_point since;
};

void set_blocking(int fd, bool blocking) {
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, blocking ? flags & ~O_NONBLOCK : flags | O_NONBLOCK);
}

// Reads what the connection has; false when it is closed, failed or sent too much.
bool read_some(Pending& p) {
  char buf[hello_bytes];
  const ssize_t n = ::recv(p.conn.get(), buf, hello_bytes - p.bytes.size(), 0);
  if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
  if (n == 0) return false;
  p.bytes.append(buf, static_cast<std::size_t>(n));
  return true;
}

// Compares every byte, so the time taken says nothing about where a guess went wrong.
bool same_bytes(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

std::string expected_hello(const std::string& token, std::int32_t rank) {
  std::string h = token;
  h.append(reinterpret_cast<const char*>(&rank), sizeof rank);
  return h;
}

}  // namespace

std::string job_token(RankComm& comm) {
  std::string token;
  if (comm.rank() == 0) {
    unsigned char raw[token_bytes];
    std::size_t got = 0;
    while (got < token_bytes) {
      const ssize_t n = ::getrandom(raw + got, token_bytes - got, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw EnvironmentError(std::string("getrandom() failed: ") + std::strerror(errno));
      got += static_cast<std::size_t>(n);
    }
    static const char digits[] = "0123456789abcdef";
    for (unsigned char c : raw) {
      token += digits[c >> 4];
      token += digits[c & 15];
    }
  }
  comm.broadcast(token, 0);
  return token;
}

void send_hello(const Fd& conn, const std::string& token, std::int32_t rank) {
  const std::string hello = expected_hello(token, rank);
  send_all(conn, hello.data(), hello.size());
}

Fd accept_peer(const Fd& listener, const std::string& token, std::int32_t peer, std::chrono::milliseconds timeout,
               const StopCheck& stop) {
  const std::string want = expected_hello(token, peer);
  const auto deadline = Clock::now() + timeout;
  set_blocking(listener.get(), false);  // a connection reset between poll and accept must not block
  std::deque<Pending> pending;
  for (;;) {
    const auto now = Clock::now();
    if (now >= deadline) break;
    throw_if_stopped(stop);  // asked every poll slice (100 ms)
    while (!pending.empty() && now - pending.front().since > hello_timeout) pending.pop_front();
    std::vector<pollfd> fds{{listener.get(), POLLIN, 0}};
    for (const auto& p : pending) fds.push_back({p.conn.get(), POLLIN, 0});
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count();
    if (::poll(fds.data(), fds.size(), static_cast<int>(std::min<long long>(left + 1, 100))) < 0 && errno != EINTR)
      throw RuntimeFailure(std::string("poll() on the probe's listening socket failed: ") + std::strerror(errno));
    // Hellos first (the fds above match `pending` as it was), then new connections.
    std::deque<Pending> kept;
    for (std::size_t i = 0; i < pending.size(); ++i) {
      Pending& p = pending[i];
      if (fds[i + 1].revents && !read_some(p)) continue;  // closed or failed: dropped
      if (p.bytes.size() < hello_bytes) {
        kept.push_back(std::move(p));
        continue;
      }
      if (!same_bytes(p.bytes, want)) continue;  // junk, wrong token, or another round's rank
      set_blocking(p.conn.get(), true);
      return std::move(p.conn);
    }
    pending = std::move(kept);
    if (fds[0].revents & POLLIN) {
      for (;;) {
        Fd c(::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK));
        if (!c) break;
        if (pending.size() >= max_pending) pending.pop_front();
        pending.push_back({std::move(c), {}, Clock::now()});
      }
    }
  }
  throw RuntimeFailure("no connection from rank " + std::to_string(peer) + " with this job's token within " +
                           std::to_string(timeout.count() / 1000) + " s",
                       "check that the ranks can reach each other on the chosen interface (--socket-ifname)");
}

}  // namespace cctune::net
