// `cctune probe`: the raw network between rank pairs (ibverbs RDMA WRITE bandwidth and
// latency, TCP where there is no RDMA), as perftest's ib_write_bw / ib_write_lat report
// it. The work is net::run_network_probe; this file only parses, prints and writes.
#include <algorithm>
#include <iostream>

#include "app/cli/command.hpp"
#include "app/commands/commands_list.hpp"
#include "app/cli/session.hpp"
#include "runtime/signals.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/units.hpp"
#include "net/probe.hpp"
#include "core/text.hpp"

namespace cctune::app {
namespace {

struct ProbeArgs {
  net::ProbeOptions o;
  std::string kind = "auto", min, max, lat_bytes, output;
  long timeout_s = 60;
  bool json = false;
};

void add_probe_options(CLI::App& cmd, ProbeArgs& a) {
  net::ProbeOptions& o = a.o;
  cmd.add_option("--probe", a.kind, "transport: auto (ibverbs when every rank has RDMA, else TCP), ib, tcp")
      ->check(CLI::IsMember({"auto", "ib", "tcp"}));
  cmd.add_option("--socket-ifname", o.socket_ifname,
                 "TCP interface, NCCL_SOCKET_IFNAME syntax (prefixes, ^exclude, =exact); default as NCCL");
  cmd.add_option("--ib-dev", o.ib_device, "RDMA device[:port] (default: by local rank index)");
  cmd.add_option("-b,--min-bytes", a.min, "smallest bandwidth message (e.g. 64K)");
  cmd.add_option("-e,--max-bytes", a.max, "largest bandwidth message (e.g. 8M)");
  cmd.add_option("-f,--step-factor", o.step_factor, "size multiplication factor");
  cmd.add_option("-n,--iters", o.iterations, "bandwidth messages per size and QP");
  cmd.add_option("-w,--warmup-iters", o.warmup_iterations, "warm-up messages (bandwidth and latency)");
  cmd.add_option("--lat-iters", o.latency_iterations, "latency ping-pong iterations");
  cmd.add_option("--lat-bytes", a.lat_bytes, "latency message size");
  cmd.add_option("--qps", o.qps, "ibverbs: queue pairs per rank pair");
  cmd.add_option("--window", o.window, "ibverbs: outstanding RDMA writes per QP");
  cmd.add_flag("--gpu-buffers", o.gpu_buffers,
               "ibverbs: buffers in GPU memory registered through dma-buf (GPUDirect RDMA), on the GPU nearest "
               "the NIC; needs libcuda.so.1 at run time");
  cmd.add_option("--timeout", a.timeout_s, "seconds before a silent peer counts as failed");
  cmd.add_option("-o,--output", a.output, "write the JSON `net` section to this file");
  cmd.add_flag("--json", a.json, "print the JSON instead of the table");
}

int run_probe(Session& session, ProbeArgs& a) {
  net::ProbeOptions& o = a.o;
  o.kind = net::parse_probe_kind(a.kind);
  if (!a.min.empty()) o.min_bytes = parse_size(a.min, "--min-bytes");
  if (!a.max.empty()) o.max_bytes = parse_size(a.max, "--max-bytes");
  if (!a.min.empty() && a.max.empty()) o.max_bytes = std::max(o.max_bytes, o.min_bytes);
  if (!a.lat_bytes.empty()) o.latency_bytes = parse_size(a.lat_bytes, "--lat-bytes");
  o.timeout = std::chrono::seconds(a.timeout_s);
  auto& comm = session.comm();
  o.before_respond = session.seams().probe_before_respond;
  // SIGINT/SIGTERM end the probe between pairs and inside waits for a peer (review F14);
  // the pairs measured so far are still printed and written.
  runtime::install_stop_handlers();
  o.stop_requested = [] { return runtime::stop_signal() != 0; };
  const auto net = net::run_network_probe(
      comm, o, [](const std::string& note) { std::cerr << "cctune: " << note << "\n"
                                                       << std::flush; }, session.layout().hosts);
  const bool stopped = comm.any(runtime::stop_signal() != 0);
  if (stopped && comm.rank() == 0)
    std::cerr << "cctune: probe interrupted by a signal; the pairs measured before it are reported\n" << std::flush;
  if (comm.rank() == 0) {
    if (!a.output.empty()) write_file_atomically(a.output, text::dump_json(net, 1) + "\n");
    std::cout << (a.json ? text::dump_json(net, 1) + "\n" : net::format_network_probe(net)) << std::flush;
  }
  if (stopped) return runtime::exit_code_for_stop(runtime::agreed_stop_signal());
  return net["summary"].value("pairs_failed", 0) > 0 ? exit_code::failure : exit_code::ok;
}

}  // namespace

std::unique_ptr<Command> make_probe_command() {
  return make_command<ProbeArgs>({"probe", "raw network between rank pairs: RDMA write bw/latency (ibverbs), TCP fallback"},
                                 add_probe_options, run_probe);
}

}  // namespace cctune::app
