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

class ProbeCommand : public Command {
 public:
  void setup(CLI::App& parent) override {
    cmd_ = parent.add_subcommand("probe", "raw network between rank pairs: RDMA write bw/latency (ibverbs), TCP fallback");
    cmd_->add_option("--probe", kind_, "transport: auto (ibverbs when every rank has RDMA, else TCP), ib, tcp")
        ->check(CLI::IsMember({"auto", "ib", "tcp"}));
    cmd_->add_option("--socket-ifname", o_.socket_ifname,
                     "TCP interface, NCCL_SOCKET_IFNAME syntax (prefixes, ^exclude, =exact); default as NCCL");
    cmd_->add_option("--ib-dev", o_.ib_device, "RDMA device[:port] (default: by local rank index)");
    cmd_->add_option("-b,--min-bytes", min_, "smallest bandwidth message (e.g. 64K)");
    cmd_->add_option("-e,--max-bytes", max_, "largest bandwidth message (e.g. 8M)");
    cmd_->add_option("-f,--step-factor", o_.step_factor, "size multiplication factor");
    cmd_->add_option("-n,--iters", o_.iterations, "bandwidth messages per size and QP");
    cmd_->add_option("-w,--warmup-iters", o_.warmup_iterations, "warm-up messages (bandwidth and latency)");
    cmd_->add_option("--lat-iters", o_.latency_iterations, "latency ping-pong iterations");
    cmd_->add_option("--lat-bytes", lat_bytes_, "latency message size");
    cmd_->add_option("--qps", o_.qps, "ibverbs: queue pairs per rank pair");
    cmd_->add_option("--window", o_.window, "ibverbs: outstanding RDMA writes per QP");
    cmd_->add_flag("--gpu-buffers", o_.gpu_buffers,
                   "ibverbs: buffers in GPU memory registered through dma-buf (GPUDirect RDMA), on the GPU nearest "
                   "the NIC; needs libcuda.so.1 at run time");
    cmd_->add_option("--timeout", timeout_s_, "seconds before a silent peer counts as failed");
    cmd_->add_option("-o,--output", output_, "write the JSON `net` section to this file");
    cmd_->add_flag("--json", json_, "print the JSON instead of the table");
  }
  bool selected() const override { return cmd_->parsed(); }

  int run(Session& session) override {
    o_.kind = net::parse_probe_kind(kind_);
    if (!min_.empty()) o_.min_bytes = parse_size(min_, "--min-bytes");
    if (!max_.empty()) o_.max_bytes = parse_size(max_, "--max-bytes");
    if (!min_.empty() && max_.empty()) o_.max_bytes = std::max(o_.max_bytes, o_.min_bytes);
    if (!lat_bytes_.empty()) o_.latency_bytes = parse_size(lat_bytes_, "--lat-bytes");
    o_.timeout = std::chrono::seconds(timeout_s_);
    auto& comm = session.comm();
    o_.before_respond = session.seams().probe_before_respond;
    // SIGINT/SIGTERM end the probe between pairs and inside waits for a peer (review F14);
    // the pairs measured so far are still printed and written.
    runtime::install_stop_handlers();
    o_.stop_requested = [] { return runtime::stop_signal() != 0; };
    const auto net = net::run_network_probe(
        comm, o_, [](const std::string& note) { std::cerr << "cctune: " << note << "\n" << std::flush; }, session.layout().hosts);
    const bool stopped = comm.any(runtime::stop_signal() != 0);
    if (stopped && comm.rank() == 0)
      std::cerr << "cctune: probe interrupted by a signal; the pairs measured before it are reported\n" << std::flush;
    if (comm.rank() == 0) {
      if (!output_.empty()) write_file_atomically(output_, text::dump_json(net, 1) + "\n");
      std::cout << (json_ ? text::dump_json(net, 1) + "\n" : net::format_network_probe(net)) << std::flush;
    }
    if (stopped) return runtime::exit_code_for_stop(runtime::agreed_stop_signal());
    return net["summary"].value("pairs_failed", 0) > 0 ? exit_code::failure : exit_code::ok;
  }

 private:
  CLI::App* cmd_ = nullptr;
  net::ProbeOptions o_;
  std::string kind_ = "auto", min_, max_, lat_bytes_, output_;
  long timeout_s_ = 60;
  bool json_ = false;
};

}  // namespace

std::unique_ptr<Command> make_probe_command() { return std::make_unique<ProbeCommand>(); }

}  // namespace cctune::app
