#pragma once
// What `cctune probe` (and `cctune sweep --probe`) asks of the network probes.
#include <chrono>
#include <functional>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace cctune::net {

// auto: ibverbs when an active RDMA port exists on every rank, else TCP (said so).
// none is accepted for `sweep --probe none`; run_network_probe returns a skipped section.
enum class ProbeKind { auto_select, ib, tcp, none };
std::string to_string(ProbeKind k);
ProbeKind parse_probe_kind(std::string_view text);  // throws UsageError

inline constexpr std::uint64_t max_probe_message_bytes = 1ull << 31;

struct ProbeOptions {
  ProbeKind kind = ProbeKind::auto_select;
  std::string socket_ifname;         // empty: NCCL_SOCKET_IFNAME, else NCCL's default choice
  std::string ib_device;             // empty: the NIC of this rank's local index (ibverbs)
  std::uint64_t min_bytes = 1 << 20; // bandwidth sizes: min..max, times `step_factor`
  std::uint64_t max_bytes = 1 << 20;
  std::uint64_t step_factor = 2;
  long iterations = 1000;            // bandwidth messages per size (per QP)
  long warmup_iterations = 50;
  long latency_iterations = 1000;
  std::uint64_t latency_bytes = 2;   // perftest's default latency size
  int qps = 1;                       // ibverbs QPs per pair (TCP: one stream)
  int window = 128;                  // ibverbs outstanding writes per QP
  bool gpu_buffers = false;          // ibverbs: GPU memory via dma-buf (libcuda.so.1 loaded at run time)
  double port_fraction_warn = 0.8;   // flag pairs below this fraction of the port rate
  std::chrono::seconds timeout{60};  // per connection step and per transfer; no hang
  // True once a stop (SIGINT/SIGTERM) was requested: asked between rounds (collectively),
  // in waits for a peer and when a transfer is interrupted by a signal. Empty: never.
  std::function<bool()> stop_requested;
  // Called with this rank (and the stop request above) before it answers as a responder.
  // Production sets none; a test build of cctune stalls one rank this way, so the timeouts
  // meet a real stalled peer, and a stop request still ends the stall.
  std::function<void(int rank, const std::function<bool()>& stop_requested)> before_respond;
};

// Runs `o.before_respond`, when set.
void before_respond(const ProbeOptions& o, int rank);

// Throws UsageError when the options contradict each other (sizes, counts).
void validate(const ProbeOptions& o);

}  // namespace cctune::net
