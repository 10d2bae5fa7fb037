#include "net/tcp_pair.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

namespace cctune::net {

namespace {

using Clock = std::chrono::steady_clock;
double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

constexpr int peak_slices = 10;

}  // namespace

std::vector<std::uint64_t> bandwidth_sizes(const ProbeOptions& o) {
  std::vector<std::uint64_t> sizes;
  // Stops before s * step_factor could pass max_bytes or wrap around 2^64.
  for (std::uint64_t s = o.min_bytes; s < o.max_bytes; s *= o.step_factor) {
    sizes.push_back(s);
    if (s > o.max_bytes / o.step_factor) break;
  }
  sizes.push_back(o.max_bytes);
  return sizes;
}

PairMeasurement tcp_initiate(const Fd& conn, const ProbeOptions& o) {
  PairMeasurement m;
  std::vector<char> buf(std::max<std::uint64_t>(o.max_bytes, o.latency_bytes), 'x');
  for (const auto size : bandwidth_sizes(o)) {
    for (long i = 0; i < o.warmup_iterations; ++i) send_all(conn, buf.data(), size, o.stop_requested);
    char ready = 0;
    recv_all(conn, &ready, 1, o.stop_requested);
    const auto t0 = Clock::now();
    for (long i = 0; i < o.iterations; ++i) send_all(conn, buf.data(), size, o.stop_requested);
    double responder_peak_GBps = 0;
    recv_all(conn, &responder_peak_GBps, sizeof responder_peak_GBps, o.stop_requested);
    const auto t1 = Clock::now();
    const double posted = 0, completed = seconds(t0, t1);
    BandwidthStats s = bandwidth_from_timestamps(size * static_cast<std::uint64_t>(o.iterations),
                                                 std::span<const double>(&posted, 1),
                                                 std::span<const double>(&completed, 1));
    s.size_bytes = size;
    s.iterations = o.iterations;
    s.peak_GBps = std::max(s.avg_GBps, responder_peak_GBps);
    m.bandwidth.push_back(s);
  }
  std::vector<double> one_way_us;
  one_way_us.reserve(static_cast<std::size_t>(o.latency_iterations));
  for (long i = 0; i < o.warmup_iterations + o.latency_iterations; ++i) {
    const auto t0 = Clock::now();
    send_all(conn, buf.data(), o.latency_bytes, o.stop_requested);
    recv_all(conn, buf.data(), o.latency_bytes, o.stop_requested);
    const auto t1 = Clock::now();
    if (i >= o.warmup_iterations) one_way_us.push_back(seconds(t0, t1) * 1e6 / 2);
  }
  m.latency = latency_from_samples(o.latency_bytes, one_way_us);
  return m;
}

void tcp_respond(const Fd& conn, const ProbeOptions& o) {
  std::vector<char> buf(std::max<std::uint64_t>(o.max_bytes, o.latency_bytes));
  for (const auto size : bandwidth_sizes(o)) {
    for (long i = 0; i < o.warmup_iterations; ++i) recv_all(conn, buf.data(), size, o.stop_requested);
    const char ready = 1;
    send_all(conn, &ready, 1, o.stop_requested);
    // Arrival time of the end of each message; slice k spans messages [b_k, b_{k+1}).
    const int slices = static_cast<int>(std::min<long>(peak_slices, o.iterations));
    std::vector<Clock::time_point> edge;
    edge.reserve(static_cast<std::size_t>(slices) + 1);
    // The first slice starts when the first bytes arrive.
    recv_all(conn, buf.data(), 1, o.stop_requested);
    edge.push_back(Clock::now());
    std::size_t first_rest = size - 1;
    long next_edge_msg = o.iterations / slices;
    for (long i = 0; i < o.iterations; ++i) {
      recv_all(conn, buf.data(), i == 0 ? first_rest : size, o.stop_requested);
      if (i + 1 == next_edge_msg || i + 1 == o.iterations) {
        edge.push_back(Clock::now());
        next_edge_msg += o.iterations / slices;
      }
    }
    double peak_GBps = 0;
    long msgs_per_slice = o.iterations / slices;
    for (std::size_t k = 0; k + 1 < edge.size(); ++k) {
      const long msgs = k + 2 == edge.size() ? o.iterations - msgs_per_slice * static_cast<long>(k) : msgs_per_slice;
      const double dt = seconds(edge[k], edge[k + 1]);
      if (dt > 0) peak_GBps = std::max(peak_GBps, static_cast<double>(size) * static_cast<double>(msgs) / dt / 1e9);
    }
    send_all(conn, &peak_GBps, sizeof peak_GBps, o.stop_requested);
  }
  for (long i = 0; i < o.warmup_iterations + o.latency_iterations; ++i) {
    recv_all(conn, buf.data(), o.latency_bytes, o.stop_requested);
    send_all(conn, buf.data(), o.latency_bytes, o.stop_requested);
  }
}

}  // namespace cctune::net
