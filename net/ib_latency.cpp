// The endpoint's latency ping-pong, in two flavours. Host buffers: RDMA WRITE, and the
// receiver spins on the last byte of its slot, as perftest's ib_write_lat does. GPU
// buffers: the CPU cannot poll GPU memory cheaply (cuMemAlloc memory has no CPU mapping
// without a BAR mapping such as gdrcopy, and every read would cross PCIe), so each
// message is an RDMA WRITE WITH IMMEDIATE and the receiver waits for the receive
// completion it raises, as `ib_write_lat --write_with_imm` does. That adds a receive
// completion per message, so it can read slightly higher than the first on one link.
#include <chrono>
#include <vector>

#include "core/error.hpp"
#include "net/ib_common.hpp"
#include "net/ib_endpoint.hpp"

namespace cctune::net::ib {

using detail::Clock;
using detail::round_up;
using detail::spin_check_mask;
using detail::throw_if_stopped;

void Endpoint::wait_byte(std::uint64_t offset, std::uint8_t value, bool& send_done) {
  const volatile std::uint8_t* p = static_cast<const volatile std::uint8_t*>(host_buffer_.data()) + offset;
  const auto deadline = Clock::now() + options_.timeout;
  ibv_wc wc[4];
  for (long spins = 0;; ++spins) {
    if (!send_done && poll(wc, 4) > 0) send_done = true;
    if (*p == value && send_done) return;
    if ((spins & spin_check_mask) != 0) continue;
    throw_if_stopped(options_.stop_requested);
    if (Clock::now() > deadline) throw RuntimeFailure("RDMA WRITE latency ping-pong: no answer from the peer within the timeout");
  }
}

Endpoint::HostLatencyMessage Endpoint::host_latency_message() {
  const auto bytes = static_cast<std::uint32_t>(options_.latency_bytes);
  const std::uint64_t send_offset = lat_offset_ + round_up(bytes);
  return {bytes, send_offset, static_cast<std::uint8_t*>(host_buffer_.data()) + send_offset + bytes - 1,
          bytes <= max_inline_};
}

LatencyStats Endpoint::write_lat_initiate(const ConnInfo& remote, long iterations, long warmup) {
  if (gpu_buffer_) return lat_initiate_imm(remote, iterations, warmup);
  const auto [bytes, send_offset, send_last, use_inline] = host_latency_message();
  std::vector<double> one_way_us;
  one_way_us.reserve(static_cast<std::size_t>(iterations));
  for (long i = 0; i < warmup + iterations; ++i) {
    const auto v = static_cast<std::uint8_t>(i % 255 + 1);
    *send_last = v;
    const auto t0 = Clock::now();
    post_write(0, remote, send_offset, remote.lat_addr, bytes, use_inline);
    bool send_done = false;
    wait_byte(lat_offset_ + bytes - 1, v, send_done);
    const auto t1 = Clock::now();
    if (i >= warmup) one_way_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / 2);
  }
  return latency_from_samples(bytes, one_way_us);
}

void Endpoint::write_lat_respond(const ConnInfo& remote, long iterations, long warmup) {
  if (gpu_buffer_) return lat_respond_imm(remote, iterations, warmup);
  const auto [bytes, send_offset, send_last, use_inline] = host_latency_message();
  for (long i = 0; i < warmup + iterations; ++i) {
    const auto v = static_cast<std::uint8_t>(i % 255 + 1);
    bool nothing_pending = true;
    wait_byte(lat_offset_ + bytes - 1, v, nothing_pending);
    *send_last = v;
    post_write(0, remote, send_offset, remote.lat_addr, bytes, use_inline);
    // Reap this write's completion before the next iteration so the SQ never fills.
    ibv_wc wc[4];
    const auto deadline = Clock::now() + options_.timeout;
    for (long spins = 0; poll(wc, 4) == 0; ++spins) {
      if ((spins & spin_check_mask) != 0) continue;
      throw_if_stopped(options_.stop_requested);
      if (Clock::now() > deadline) throw RuntimeFailure("RDMA WRITE latency: completion never arrived");
    }
  }
}

void Endpoint::await_imm(int sends, int arrivals) {
  const auto deadline = Clock::now() + options_.timeout;
  ibv_wc wc[8];
  for (long spins = 0; sends > 0 || arrivals > 0; ++spins) {
    const int n = poll(wc, 8);
    for (int i = 0; i < n; ++i) {
      if (wc[i].opcode == IBV_WC_RECV_RDMA_WITH_IMM) {
        --arrivals;
        // Replace the consumed receive at once: the peer must never find the queue empty
        // (an RNR NAK would stall it for the RNR timer).
        post_recv(0);
      } else {
        --sends;
      }
    }
    if ((spins & spin_check_mask) != 0) continue;
    throw_if_stopped(options_.stop_requested);
    if (Clock::now() > deadline)
      throw RuntimeFailure("RDMA WRITE WITH IMM latency ping-pong: no answer from the peer within the timeout");
  }
}

LatencyStats Endpoint::lat_initiate_imm(const ConnInfo& remote, long iterations, long warmup) {
  const auto bytes = static_cast<std::uint32_t>(options_.latency_bytes);
  const std::uint64_t send_offset = lat_offset_ + round_up(bytes);
  std::vector<double> one_way_us;
  one_way_us.reserve(static_cast<std::size_t>(iterations));
  for (long i = 0; i < warmup + iterations; ++i) {
    const auto t0 = Clock::now();
    post_write(0, remote, send_offset, remote.lat_addr, bytes, false, static_cast<std::uint32_t>(i));
    await_imm(1, 1);  // our write's completion and the peer's answer
    const auto t1 = Clock::now();
    if (i >= warmup) one_way_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / 2);
  }
  return latency_from_samples(bytes, one_way_us);
}

void Endpoint::lat_respond_imm(const ConnInfo& remote, long iterations, long warmup) {
  const auto bytes = static_cast<std::uint32_t>(options_.latency_bytes);
  const std::uint64_t send_offset = lat_offset_ + round_up(bytes);
  // The previous answer's completion is reaped while waiting for the next message, so
  // the answer goes out as soon as the message arrives; at most one send is in flight.
  int in_flight = 0;
  for (long i = 0; i < warmup + iterations; ++i) {
    await_imm(in_flight, 1);
    post_write(0, remote, send_offset, remote.lat_addr, bytes, false, static_cast<std::uint32_t>(i));
    in_flight = 1;
  }
  await_imm(in_flight, 0);
}

}  // namespace cctune::net::ib
