#pragma once
// One side of an RC connection used by the probe: device context, protection domain,
// completion queue, registered buffer (host memory, or GPU memory through dma-buf) and
// `qps` queue pairs, each in its own owner and declared in creation order so destruction
// runs in reverse (QPs before the CQ, the MR before the buffer, everything before the
// context).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "net/gpu_buffer.hpp"
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
  std::uint64_t addr = 0;          // start of the bandwidth region (a GPU address with GPU buffers)
  std::uint64_t lat_addr = 0;      // latency receive slot
  int mtu = 0;                     // bytes
  std::string to_text() const;
  static ConnInfo from_text(const std::string& text);  // throws RuntimeFailure
};

class Endpoint {
 public:
  // With `gpu`, the buffer is GPU memory on that GPU, registered with
  // ibv_reg_dmabuf_mr; else host memory on the NIC's NUMA node.
  Endpoint(const PortInfo& port, const ProbeOptions& o, std::shared_ptr<const gpu::GpuContext> gpu = nullptr);
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
  // Ping-pong on QP 0; one-way = RTT / 2 per iteration. Host buffers: the receiver
  // polls the last byte of its slot (perftest's ib_write_lat). GPU buffers: the CPU
  // cannot poll GPU memory cheaply, so each message is an RDMA WRITE WITH IMMEDIATE and
  // the receiver waits for its receive completion (ib_write_lat --write_with_imm).
  LatencyStats write_lat_initiate(const ConnInfo& remote, long iterations, long warmup);
  void write_lat_respond(const ConnInfo& remote, long iterations, long warmup);

  const PortInfo& port() const { return port_; }
  bool buffer_numa_bound() const { return host_buffer_.numa_bound(); }

 private:
  void post_write(int qp, const ConnInfo& remote, std::uint64_t local_offset, std::uint64_t remote_addr,
                  std::uint32_t bytes, bool inline_data, std::optional<std::uint32_t> imm = std::nullopt);
  void post_recv(int qp);
  int poll(ibv_wc* wc, int max);
  void wait_byte(std::uint64_t offset, std::uint8_t value, bool& send_done);
  void await_imm(int sends, int arrivals);
  LatencyStats lat_initiate_imm(const ConnInfo& remote, long iterations, long warmup);
  void lat_respond_imm(const ConnInfo& remote, long iterations, long warmup);
  // The host-buffer ping-pong's message: its size, where it is sent from, and its last byte
  // (the one the peer spins on).
  struct HostLatencyMessage {
    std::uint32_t bytes;
    std::uint64_t send_offset;
    std::uint8_t* send_last;
    bool use_inline;
  };
  HostLatencyMessage host_latency_message();

  PortInfo port_;
  ProbeOptions options_;
  std::uint32_t psn_ = 0;
  std::uint64_t lat_offset_ = 0;  // receive slot; the send slot follows it
  std::uint32_t max_inline_ = 0;
  std::uint64_t base_ = 0;        // the buffer's first byte as the MR (and the peer) address it
  Context context_;
  ProtectionDomain pd_;
  CompletionQueue cq_;
  HostBuffer host_buffer_;                      // empty with GPU buffers
  std::optional<gpu::GpuBuffer> gpu_buffer_;    // set with GPU buffers
  MemoryRegion mr_;
  std::vector<QueuePair> qps_;
};

}  // namespace cctune::net::ib
