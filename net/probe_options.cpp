#include "net/probe_options.hpp"

#include <cstdlib>
#include <string>

#include "core/error.hpp"

namespace cctune::net {

std::string to_string(ProbeKind k) {
  switch (k) {
    case ProbeKind::auto_select: return "auto";
    case ProbeKind::ib: return "ib";
    case ProbeKind::tcp: return "tcp";
    case ProbeKind::none: return "none";
  }
  return "?";
}

ProbeKind parse_probe_kind(std::string_view text) {
  if (text == "auto") return ProbeKind::auto_select;
  if (text == "ib") return ProbeKind::ib;
  if (text == "tcp") return ProbeKind::tcp;
  if (text == "none") return ProbeKind::none;
  throw UsageError("unknown probe kind '" + std::string(text) + "'", "use --probe auto, ib, tcp or none");
}

void validate(const ProbeOptions& o) {
  if (o.min_bytes == 0 || o.max_bytes < o.min_bytes)
    throw UsageError("probe sizes must satisfy 0 < min <= max", "check -b/--min-bytes and -e/--max-bytes");
  if (o.step_factor < 2) throw UsageError("probe step factor must be at least 2", "use -f 2");
  if (o.iterations < 1 || o.latency_iterations < 4 || o.warmup_iterations < 0)
    throw UsageError("probe iterations must be >= 1 (latency >= 4)", "check -n/--iters and --lat-iters");
  if (o.qps < 1 || o.qps > 64) throw UsageError("--qps must be in 1..64");
  if (o.window < 1 || o.window > 4096) throw UsageError("--window must be in 1..4096");
  if (o.latency_bytes < 1) throw UsageError("--lat-bytes must be at least 1");
  // One RDMA write carries a 32-bit length (and ports cap it at 2 GiB); the TCP probe keeps
  // one buffer of the largest size. Larger sizes would be truncated, not measured.
  if (o.max_bytes > max_probe_message_bytes || o.latency_bytes > max_probe_message_bytes)
    throw UsageError("probe message sizes are at most 2 GiB (one RDMA write's limit)", "use -e 2G or less");
  if (o.timeout.count() < 1) throw UsageError("--timeout must be at least 1 s");
  // poll() takes milliseconds in an int: above 2 147 483 s it would wrap to a negative wait.
  if (o.timeout.count() > 86400) throw UsageError("--timeout must be at most 86400 s (a day)", "use a smaller --timeout");
  if (o.gpu_buffers && o.kind == ProbeKind::tcp)
    throw UsageError("--gpu-buffers needs the ibverbs probe (RDMA from GPU memory); TCP sends from host memory",
                     "use --probe ib, or drop --gpu-buffers");
}

void before_respond(const ProbeOptions& o, int rank) {
  if (o.before_respond) o.before_respond(rank, o.stop_requested);
}

}  // namespace cctune::net
