#pragma once
// The workers' RankComm, carried by NCCL itself between measured batches, on its own stream.
//
// Why point-to-point (ncclSend/ncclRecv) and not ncclAllReduce/ncclAllGather: cctune's tuner
// plugin controls algorithm, protocol and channels process-wide for every collective call on
// every communicator of the worker (SweepControl), so control collectives would be forced to
// the point's algorithm and counted in its observations. NCCL never consults the tuner for
// point-to-point operations, so this path leaves the sweep control untouched.
//
// Every operation is an exchange of fixed-size byte blocks with all peers, and reductions are
// computed on the host in rank order, so every rank gets bit-identical results (the engine's
// stop decisions depend on that). Tags of send/recv are not transmitted: messages between a
// pair of ranks are matched in order, which is all the engine and the worker need.
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "collectives/nccl/cuda_resources.hpp"
#include "collectives/nccl/nccl_context.hpp"
#include "comm/rank_comm.hpp"

namespace cctune::nccl_detail {

class NcclRankComm final : public RankComm {
 public:
  explicit NcclRankComm(std::shared_ptr<NcclContext> ctx);

  int rank() const override { return ctx_->rank; }
  int size() const override { return ctx_->nranks; }
  void barrier() override;
  void allreduce_sum(std::span<double> values) override;
  void allreduce_max(std::span<double> values) override;
  void broadcast(std::string& data, int root) override;
  std::vector<std::string> allgather(const std::string& mine) override;
  void send(const std::string& data, int peer, int tag) override;
  std::string recv(int peer, int tag) override;

 private:
  // Every rank's `bytes` bytes, rank-major.
  std::vector<std::byte> exchange(const void* mine, std::size_t bytes);
  void broadcast_bytes(void* data, std::size_t bytes, int root);
  void send_bytes(const void* data, std::size_t bytes, int peer);
  void recv_bytes(void* data, std::size_t bytes, int peer);
  void reserve(std::size_t bytes);
  template <class Op>
  void allreduce(std::span<double> values, Op op);

  std::shared_ptr<NcclContext> ctx_;
  DeviceBuffer device_;
  PinnedBuffer host_;
};

}  // namespace cctune::nccl_detail
