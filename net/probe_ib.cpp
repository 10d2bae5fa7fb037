// The ibverbs driver of the probe. Connection data travels over RankComm; every step
// of a pair ends with both sides sending a status, so a failure on one side reaches
// the other as a message and never as a receive that waits forever.
#include <functional>

#include "comm/rank_agreement.hpp"
#include "core/error.hpp"
#include "net/gpu_buffer.hpp"
#include "net/gpu_choice.hpp"
#include "net/ib_device.hpp"
#include "net/ib_endpoint.hpp"
#include "net/pair_measurement.hpp"
#include "net/probe_rounds.hpp"
#include "topology/node_probe.hpp"

namespace cctune::net::detail {

namespace {

constexpr int tag_conn = 7101, tag_ready = 7102, tag_bw_done = 7103, tag_done = 7104;
const std::string err_prefix = "ERR:";

// Initiator sends first, responder receives first: no deadlock on blocking sends.
std::string exchange(RankComm& comm, bool initiator, int peer, int tag, const std::string& mine) {
  if (initiator) {
    comm.send(mine, peer, tag);
    return comm.recv(peer, tag);
  }
  std::string theirs = comm.recv(peer, tag);
  comm.send(mine, peer, tag);
  return theirs;
}

bool is_error(const std::string& s) { return s.rfind(err_prefix, 0) == 0; }

// What travels to the peer and into the pair entry: the fix too, when there is one
// (a dma-buf registration failure is useless without it).
std::string one_line(const Error& e) { return e.fix().empty() ? e.what_only() : e.what_only() + "; fix: " + e.fix(); }

// The GPU for this rank's buffers: nearest the NIC where the topology knows (NVML and
// hwloc), else CUDA ordinal local_index mod the GPU count; checked for dma-buf export.
std::shared_ptr<const gpu::GpuContext> open_gpu(const ib::PortInfo& port, int local_index) {
  auto driver = cuda::Driver::load();
  const auto bus_id = nearest_gpu_bus_id(topo::probe_local_node(), port.device, local_index);
  auto context = std::make_shared<const gpu::GpuContext>(driver, bus_id, local_index);
  context->require_dmabuf();
  return context;
}

// Smallest endpoint that still allocates, exports and registers a buffer: run once per
// rank before the rounds so a GPU or NIC that cannot do dma-buf is one error for the
// whole run instead of a failure in every pair.
ProbeOptions preflight_options(ProbeOptions o) {
  o.min_bytes = o.max_bytes = 1;
  o.qps = 1;
  o.window = 1;
  return o;
}

nlohmann::json port_json(const ib::PortInfo& p) {
  return {{"device", p.device},         {"port", p.port},         {"link_layer", p.ethernet ? "Ethernet" : "InfiniBand"},
          {"lid", p.lid},               {"gid_index", p.gid_index}, {"gid_type", p.gid_type},
          {"mtu_bytes", p.active_mtu},  {"port_rate_Gbps", p.rate_Gbps}, {"numa_node", p.numa_node}};
}

// One step of a pair: runs `work` (what it returns goes to the peer; "ok" when it has
// nothing to say), swaps the status with the peer, and throws when either side failed.
// Returns the peer's text.
std::string pair_step(RankComm& comm, bool initiator, int peer, int tag, const std::function<std::string()>& work) {
  std::string mine;
  try {
    mine = work();
  } catch (const Error& e) {
    mine = err_prefix + one_line(e);
  }
  const std::string theirs = exchange(comm, initiator, peer, tag, mine);
  if (is_error(mine)) throw RuntimeFailure(mine.substr(err_prefix.size()));
  if (is_error(theirs)) throw RuntimeFailure("peer: " + theirs.substr(err_prefix.size()));
  return theirs;
}

// One pair, one side. Returns the measurement on the initiator; throws on failure.
PairMeasurement run_pair(RankComm& comm, bool initiator, int peer, const ib::PortInfo& port, const ProbeOptions& o,
                         const std::shared_ptr<const gpu::GpuContext>& gpu, bool& numa_bound) {
  std::unique_ptr<ib::Endpoint> ep;
  const std::string theirs = pair_step(comm, initiator, peer, tag_conn, [&] {
    ep = std::make_unique<ib::Endpoint>(port, o, gpu);
    return ep->local_info().to_text();
  });
  numa_bound = ep->buffer_numa_bound();
  const auto remote = ib::ConnInfo::from_text(theirs);

  // Both QPs must be in RTR before the first write arrives: "ready" after connecting.
  pair_step(comm, initiator, peer, tag_ready, [&] {
    ep->connect(remote);
    return std::string("ok");
  });
  PairMeasurement m;
  pair_step(comm, initiator, peer, tag_bw_done, [&] {
    if (initiator)
      for (const auto size : bandwidth_sizes(o))
        m.bandwidth.push_back(ep->write_bw(remote, size, o.iterations, o.warmup_iterations));
    return std::string("ok");
  });
  if (!initiator) before_respond(o, comm.rank());
  pair_step(comm, initiator, peer, tag_done, [&] {
    if (initiator) m.latency = ep->write_lat_initiate(remote, o.latency_iterations, o.warmup_iterations);
    else ep->write_lat_respond(remote, o.latency_iterations, o.warmup_iterations);
    return std::string("ok");
  });
  return m;
}

}  // namespace

void run_ib_rounds(RankComm& comm, const RankInfo& me, const ProbeOptions& o, const std::vector<Round>& rounds,
                   nlohmann::json& result) {
  std::vector<ib::PortInfo> ports;
  ib::PortInfo port;
  std::shared_ptr<const gpu::GpuContext> gpu;
  agree_on_errors(comm, [&] {
    ports = ib::active_ports();
    port = ib::choose_port(ports, o.ib_device, me.local_index);
    if (!o.gpu_buffers) return;
    gpu = open_gpu(port, me.local_index);
    const ib::Endpoint preflight(port, preflight_options(o), gpu);
  });
  nlohmann::json mine = port_json(port);
  mine["buffer"] = gpu ? gpu::buffer_label(*gpu) : "host";
  mine["rank"] = me.rank;
  mine["host"] = me.hosts[static_cast<std::size_t>(me.rank)];
  const auto endpoints = gather_endpoints(comm, mine);
  result["endpoints"] = endpoints;
  const auto label = [](const nlohmann::json& e) {
    return e["device"].get<std::string>() + ":" + std::to_string(e["port"].get<int>());
  };
  // NIC-to-NIC inside a node: ranks on one host take NICs by local index, so with one
  // rank per NIC the pairs with same_host = true are exactly those.
  result["pairs"] = run_rounds(comm, me, rounds, endpoints, "ib", label, o.stop_requested, [&](int peer, bool initiator, nlohmann::json& entry) {
    bool numa_bound = false;
    const auto m = run_pair(comm, initiator, peer, port, o, gpu, numa_bound);
    if (!initiator) return;
    nlohmann::json bw = nlohmann::json::array();
    for (const auto& s : m.bandwidth) bw.push_back(s);
    entry["bandwidth"] = bw;
    entry["latency"] = m.latency;
    entry["latency_method"] = gpu ? "rdma_write_with_imm" : "rdma_write_poll_last_byte";
    if (!gpu) entry["buffer_numa_bound"] = numa_bound;
  });
}

}  // namespace cctune::net::detail
