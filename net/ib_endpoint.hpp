#pragma once
// One side of an RC connection used by the probe: device context, protection domain,
// completion queue, registered buffer and `qps` queue pairs, each in its own owner and
// declared in creation order so destruction runs in reverse (QPs before the CQ, the MR
// before the buffer, everything before the context).
#include <cstdint>
#include <string>
#include <vector>

#include "net/ib_device.hpp"
#include "net/ib_handles.hpp"
#include "net/probe_options.hpp"
#include "net/probe_stats.hpp"

namespace cctune::net::ib {

// What the peer needs to reach us: exchanged over RankComm as JSON text.
struct ConnInfo {
  std::uint16_t lid = 0;
  std::vector<std::uint32_t> qpn;
  std::uint32_t psn = 0;
  std::string gid_hex;   // 32 hex digits; all zero when unused (InfiniBand in one subnet)
  std::uint32_t rkey = 0;
  std::uint64_t addr = 0;          // start of the bandwidth region
  std::uint64_t lat_addr = 0;      // latency receive slot
  int mtu = 0;                     // bytes
  std::string to_text() const;
  static ConnInfo from_text(const std::string& text);  // throws RuntimeFailure
};

class Endpoint {
 public:
  Endpoint(const PortInfo& port, const ProbeOptions& o);
  Endpoint(Endpoint&&) noexcept = default;
  Endpoint& operator=(Endpoint&&) noexcept = default;
  Endpoint(const Endpoint&) = delete;
  Endpoint& operator=(const Endpoint&) = delete;

  ConnInfo local_info() const;
  // RESET -> INIT -> RTR -> RTS for every QP against the peer's QP of the same index.
  void connect(const ConnInfo& remote);

  // Writes `iterations` messages of `size` per QP, at most `window` outstanding per QP;
  // every write is signalled so each has its own completion time (perftest --cq-mod=1).
  BandwidthStats write_bw(const ConnInfo& remote, std::uint64_t size, long iterations, long warmup);
  // Ping-pong: the initiator writes, the responder sees the last byte change and writes
  // back; one-way = RTT / 2 per iteration.
  LatencyStats write_lat_initiate(const ConnInfo& remote, long iterations, long warmup);
  void write_lat_respond(const ConnInfo& remote, long iterations, long warmup);

  const PortInfo& port() const { return port_; }
  bool buffer_numa_bound() const { return buffer_.numa_bound(); }

 private:
  void post_write(int qp, const ConnInfo& remote, std::uint64_t local_offset, std::uint64_t remote_addr,
                  std::uint32_t bytes, bool inline_data);
  int poll(ibv_wc* wc, int max);
  void wait_byte(std::uint64_t offset, std::uint8_t value, bool& send_done);

  PortInfo port_;
  ProbeOptions options_;
  std::uint32_t psn_ = 0;
  std::uint64_t lat_offset_ = 0;  // receive slot; the send slot follows it
  std::uint32_t max_inline_ = 0;
  Context context_;
  ProtectionDomain pd_;
  CompletionQueue cq_;
  HostBuffer buffer_;
  MemoryRegion mr_;
  std::vector<QueuePair> qps_;
};

}  // namespace cctune::net::ib
