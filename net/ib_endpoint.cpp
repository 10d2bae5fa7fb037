#include "net/ib_endpoint.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <nlohmann/json.hpp>
#include <random>

#include "core/error.hpp"
#include "net/ib_common.hpp"

namespace cctune::net::ib {

namespace {

using detail::Clock;
using detail::round_up;
using detail::verbs_error;

double now_s() { return std::chrono::duration<double>(Clock::now().time_since_epoch()).count(); }

// Pre-posted receives on QP 0 for write-with-immediate latency: one is consumed per
// message and posted again at once; a few spare keep a late repost from causing an RNR NAK.
constexpr int lat_recv_depth = 4;

std::string hex(const unsigned char* raw, std::size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (std::size_t i = 0; i < n; ++i) { s += digits[raw[i] >> 4]; s += digits[raw[i] & 15]; }
  return s;
}

void unhex(const std::string& s, unsigned char* raw, std::size_t n) {
  if (s.size() != 2 * n) throw RuntimeFailure("malformed GID in the peer's connection data");
  for (std::size_t i = 0; i < n; ++i) raw[i] = static_cast<unsigned char>(std::stoi(s.substr(2 * i, 2), nullptr, 16));
}

ibv_mtu mtu_enum(int bytes) {
  if (bytes >= 4096) return IBV_MTU_4096;
  if (bytes >= 2048) return IBV_MTU_2048;
  if (bytes >= 1024) return IBV_MTU_1024;
  if (bytes >= 512) return IBV_MTU_512;
  return IBV_MTU_256;
}

}  // namespace

std::string ConnInfo::to_text() const {
  return nlohmann::json{{"lid", lid}, {"qpn", qpn},   {"psn", psn},           {"gid", gid_hex},
                        {"rkey", rkey}, {"addr", addr}, {"lat_addr", lat_addr}, {"mtu", mtu}}
      .dump();
}

ConnInfo ConnInfo::from_text(const std::string& text) {
  try {
    const auto j = nlohmann::json::parse(text);
    ConnInfo c;
    c.lid = j.at("lid");
    c.qpn = j.at("qpn").get<std::vector<std::uint32_t>>();
    c.psn = j.at("psn");
    c.gid_hex = j.at("gid");
    c.rkey = j.at("rkey");
    c.addr = j.at("addr");
    c.lat_addr = j.at("lat_addr");
    c.mtu = j.at("mtu");
    return c;
  } catch (const nlohmann::json::exception& e) {
    throw RuntimeFailure(std::string("malformed RDMA connection data from the peer rank: ") + e.what());
  }
}

Endpoint::Endpoint(const PortInfo& port, const ProbeOptions& o, std::shared_ptr<const gpu::GpuContext> gpu)
    : port_(port), options_(o) {
  int count = 0;
  auto list = get_device_list(count);
  for (int d = 0; d < count && !context_; ++d)
    if (port.device == ibv_get_device_name(list.get()[d])) context_.reset(ibv_open_device(list.get()[d]));
  if (!context_) throw EnvironmentError("cannot open RDMA device " + port.device);
  pd_.reset(ibv_alloc_pd(context_.get()));
  if (!pd_) throw EnvironmentError(verbs_error("ibv_alloc_pd on " + port.device, 0));
  const int cq_depth = o.qps * o.window + 16 + (gpu ? lat_recv_depth : 0);
  cq_.reset(ibv_create_cq(context_.get(), cq_depth, nullptr, nullptr, 0));
  if (!cq_) throw EnvironmentError(verbs_error("ibv_create_cq on " + port.device, 0));

  lat_offset_ = round_up(o.max_bytes);
  const std::size_t bytes = lat_offset_ + 2 * round_up(o.latency_bytes);
  const int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
  if (gpu) {
    gpu_buffer_.emplace(gpu, bytes);
    base_ = gpu_buffer_->address();
    // offset 0 into the dma-buf, iova = the GPU address: the peer writes to the same
    // addresses it would use for host memory, and sge.addr stays base_ + offset.
    mr_.reset(ibv_reg_dmabuf_mr(pd_.get(), 0, gpu_buffer_->size(), base_, gpu_buffer_->dmabuf_fd(), access));
    if (!mr_) {
      const int err = errno;
      throw EnvironmentError(
          verbs_error("ibv_reg_dmabuf_mr of " + std::to_string(gpu_buffer_->size()) + " bytes on " +
                          gpu_buffer_->context().label() + " with " + port.device,
                      err),
          "GPUDirect RDMA through dma-buf needs the NIC driver to import dma-buf (mlx5 in Linux >= 5.12, or "
          "MLNX_OFED/DOCA-OFED with dma-buf support) and rdma-core >= 34; nvidia-peermem is not needed");
    }
  } else {
    host_buffer_ = HostBuffer(bytes, port.numa_node);
    base_ = reinterpret_cast<std::uintptr_t>(host_buffer_.data());
    mr_.reset(ibv_reg_mr(pd_.get(), host_buffer_.data(), bytes, access));
    if (!mr_)
      throw EnvironmentError(verbs_error("ibv_reg_mr of " + std::to_string(bytes) + " bytes on " + port.device, 0),
                             "raise the locked-memory limit (ulimit -l unlimited)");
  }

  std::random_device rd;
  psn_ = rd() & 0xffffff;
  for (int q = 0; q < o.qps; ++q) {
    ibv_qp_init_attr init{};
    init.send_cq = cq_.get();
    init.recv_cq = cq_.get();
    init.qp_type = IBV_QPT_RC;
    init.sq_sig_all = 0;
    init.cap.max_send_wr = static_cast<std::uint32_t>(o.window);
    init.cap.max_recv_wr = gpu ? lat_recv_depth : 1;
    init.cap.max_send_sge = 1;
    init.cap.max_recv_sge = 1;
    init.cap.max_inline_data = 64;  // for latency messages; retried without if refused
    QueuePair qp(ibv_create_qp(pd_.get(), &init));
    if (!qp) {
      init.cap.max_inline_data = 0;
      qp.reset(ibv_create_qp(pd_.get(), &init));
    }
    if (!qp) throw EnvironmentError(verbs_error("ibv_create_qp (RC) on " + port.device, 0));
    max_inline_ = init.cap.max_inline_data;  // the provider writes back what it granted
    qps_.push_back(std::move(qp));
  }
  // Inline sends are copied by the CPU from sge.addr, which the CPU cannot read in GPU memory.
  if (gpu) max_inline_ = 0;
}

ConnInfo Endpoint::local_info() const {
  ConnInfo c;
  c.lid = port_.lid;
  for (const auto& qp : qps_) c.qpn.push_back(qp->qp_num);
  c.psn = psn_;
  unsigned char gid[16] = {};
  if (port_.gid_index >= 0) {
    ibv_gid g{};
    if (ibv_query_gid(context_.get(), static_cast<std::uint8_t>(port_.port), port_.gid_index, &g) == 0)
      std::memcpy(gid, g.raw, 16);
  }
  c.gid_hex = hex(gid, 16);
  c.rkey = mr_->rkey;
  c.addr = base_;
  c.lat_addr = c.addr + lat_offset_;
  c.mtu = port_.active_mtu;
  return c;
}

void Endpoint::connect(const ConnInfo& remote) {
  if (remote.qpn.size() != qps_.size())
    throw RuntimeFailure("the peer rank created " + std::to_string(remote.qpn.size()) + " QPs, this rank " +
                         std::to_string(qps_.size()), "pass the same --qps on every rank");
  for (std::size_t q = 0; q < qps_.size(); ++q) {
    ibv_qp* qp = qps_[q].get();
    // RESET -> INIT (RC): state, pkey index, port, access flags.
    ibv_qp_attr a{};
    a.qp_state = IBV_QPS_INIT;
    a.pkey_index = 0;
    a.port_num = static_cast<std::uint8_t>(port_.port);
    a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE;
    if (int e = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
      throw RuntimeFailure(verbs_error("ibv_modify_qp RESET->INIT", e));
    // Receives for write-with-immediate latency go in now (INIT accepts them): the
    // "ready" exchange that follows connect() then guarantees both sides have them
    // before the first message.
    if (q == 0 && gpu_buffer_)
      for (int r = 0; r < lat_recv_depth; ++r) post_recv(0);

    // INIT -> RTR (RC): address vector, path MTU, destination QPN, receive PSN,
    // responder resources, minimum RNR NAK timer.
    a = {};
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = mtu_enum(std::min(port_.active_mtu, remote.mtu));
    a.dest_qp_num = remote.qpn[q];
    a.rq_psn = remote.psn;
    a.max_dest_rd_atomic = 1;
    a.min_rnr_timer = 12;
    a.ah_attr.dlid = remote.lid;
    a.ah_attr.sl = 0;
    a.ah_attr.src_path_bits = 0;
    a.ah_attr.port_num = static_cast<std::uint8_t>(port_.port);
    // RoCE always routes by GID (a GRH); InfiniBand does when the peer has no LID.
    if (port_.ethernet || remote.lid == 0) {
      a.ah_attr.is_global = 1;
      unhex(remote.gid_hex, a.ah_attr.grh.dgid.raw, 16);
      a.ah_attr.grh.sgid_index = static_cast<std::uint8_t>(std::max(port_.gid_index, 0));
      a.ah_attr.grh.hop_limit = 64;
      a.ah_attr.grh.traffic_class = 0;
      a.ah_attr.grh.flow_label = 0;
    }
    if (int e = ibv_modify_qp(qp, &a,
                              IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                                  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
      throw RuntimeFailure(verbs_error("ibv_modify_qp INIT->RTR", e),
                           port_.ethernet ? "check the GID index (RoCE v2) and that both NICs share a subnet"
                                          : "check that the subnet manager is running (LIDs assigned)");

    // RTR -> RTS (RC): send PSN, ACK timeout, retry counts, initiator resources.
    a = {};
    a.qp_state = IBV_QPS_RTS;
    a.sq_psn = psn_;
    a.timeout = 14;    // 4.096 us * 2^14 = 67 ms per try
    a.retry_cnt = 7;
    a.rnr_retry = 7;   // 7 = retry forever on RNR; RDMA WRITE never RNRs anyway
    a.max_rd_atomic = 1;
    if (int e = ibv_modify_qp(qp, &a,
                              IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                                  IBV_QP_MAX_QP_RD_ATOMIC))
      throw RuntimeFailure(verbs_error("ibv_modify_qp RTR->RTS", e));
  }
}

void Endpoint::post_write(int q, const ConnInfo& remote, std::uint64_t local_offset, std::uint64_t remote_addr,
                          std::uint32_t bytes, bool inline_data, std::optional<std::uint32_t> imm) {
  ibv_sge sge{};
  sge.addr = base_ + local_offset;
  sge.length = bytes;
  sge.lkey = mr_->lkey;
  ibv_send_wr wr{};
  wr.wr_id = static_cast<std::uint64_t>(q);
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = imm ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE;
  if (imm) wr.imm_data = htonl(*imm);
  wr.send_flags = IBV_SEND_SIGNALED | (inline_data ? IBV_SEND_INLINE : 0);
  wr.wr.rdma.remote_addr = remote_addr;
  wr.wr.rdma.rkey = remote.rkey;
  ibv_send_wr* bad = nullptr;
  if (int e = ibv_post_send(qps_[static_cast<std::size_t>(q)].get(), &wr, &bad))
    throw RuntimeFailure(verbs_error(imm ? "ibv_post_send (RDMA WRITE WITH IMM)" : "ibv_post_send (RDMA WRITE)", e));
}

void Endpoint::post_recv(int q) {
  // The immediate arrives in the completion; the data goes where the writer aimed it,
  // so the receive needs no buffer of its own.
  ibv_recv_wr wr{};
  wr.wr_id = static_cast<std::uint64_t>(q);
  wr.sg_list = nullptr;
  wr.num_sge = 0;
  ibv_recv_wr* bad = nullptr;
  if (int e = ibv_post_recv(qps_[static_cast<std::size_t>(q)].get(), &wr, &bad))
    throw RuntimeFailure(verbs_error("ibv_post_recv", e));
}

int Endpoint::poll(ibv_wc* wc, int max) {
  const int n = ibv_poll_cq(cq_.get(), max, wc);
  if (n < 0) throw RuntimeFailure("ibv_poll_cq failed on " + port_.device);
  for (int i = 0; i < n; ++i)
    if (wc[i].status != IBV_WC_SUCCESS)
      throw RuntimeFailure(std::string("RDMA WRITE completed with error: ") + ibv_wc_status_str(wc[i].status),
                           "check the fabric path between the pair (ibstat, ibv_rc_pingpong)");
  return n;
}

BandwidthStats Endpoint::write_bw(const ConnInfo& remote, std::uint64_t size, long iterations, long warmup) {
  // post_write's length is 32-bit: a larger size would move less than it is credited with.
  if (size > max_probe_message_bytes)
    throw UsageError("an RDMA write of " + std::to_string(size) + " bytes is over the 2 GiB limit", "use -e 2G or less");
  const int nq = static_cast<int>(qps_.size());
  const auto deadline = Clock::now() + options_.timeout;
  std::vector<double> posted, completed;
  // The warm-up pass runs the same loop; only the last pass's timestamps are kept.
  for (const long count : {warmup, iterations}) {
    const long total = count * nq;
    posted.assign(static_cast<std::size_t>(total), 0);
    completed.assign(static_cast<std::size_t>(total), 0);
    std::vector<long> sent(static_cast<std::size_t>(nq), 0), outstanding(static_cast<std::size_t>(nq), 0);
    long n_posted = 0, n_done = 0, idle = 0;
    ibv_wc wc[32];
    while (n_done < total) {
      for (int q = 0; q < nq; ++q)
        while (outstanding[static_cast<std::size_t>(q)] < options_.window && sent[static_cast<std::size_t>(q)] < count) {
          posted[static_cast<std::size_t>(n_posted++)] = now_s();
          post_write(q, remote, 0, remote.addr, static_cast<std::uint32_t>(size), false);
          ++sent[static_cast<std::size_t>(q)];
          ++outstanding[static_cast<std::size_t>(q)];
        }
      const int n = poll(wc, 32);
      const double t = now_s();
      for (int i = 0; i < n; ++i) {
        completed[static_cast<std::size_t>(n_done++)] = t;
        --outstanding[wc[i].wr_id];
      }
      if (n != 0 || (++idle & detail::spin_check_mask) != 0) continue;
      detail::throw_if_stopped(options_.stop_requested);
      if (Clock::now() > deadline) throw RuntimeFailure("RDMA WRITE bandwidth test did not complete within the timeout");
    }
  }
  return bandwidth_from_timestamps(size, posted, completed);
}

}  // namespace cctune::net::ib
