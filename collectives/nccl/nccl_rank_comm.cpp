#include "collectives/nccl/nccl_rank_comm.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace cctune::nccl_detail {

NcclRankComm::NcclRankComm(std::shared_ptr<NcclContext> ctx) : ctx_(std::move(ctx)) { reserve(4096); }

void NcclRankComm::reserve(std::size_t bytes) {
  bytes = std::max<std::size_t>(bytes, 1);
  if (bytes <= device_.bytes()) return;
  const std::size_t want = std::max(bytes, 2 * device_.bytes());
  device_ = DeviceBuffer(want);
  host_ = PinnedBuffer(want);
}

std::vector<std::byte> NcclRankComm::exchange(const void* mine, std::size_t bytes) {
  const int n = size(), me = rank();
  std::vector<std::byte> all(bytes * static_cast<std::size_t>(n));
  if (bytes == 0) return all;
  reserve(all.size());
  auto* dev = device_.as<std::byte>();
  auto* host = static_cast<std::byte*>(host_.get());
  cudaStream_t s = ctx_->ctl_stream.get();
  ncclComm_t comm = ctx_->nccl();
  try {
    std::memcpy(host + me * bytes, mine, bytes);
    CCTUNE_CUDA_CHECK(cudaMemcpyAsync(dev + me * bytes, host + me * bytes, bytes, cudaMemcpyHostToDevice, s));
    if (n > 1) {
      CCTUNE_NCCL_CHECK(ncclGroupStart(), comm);
      for (int peer = 0; peer < n; ++peer) {
        if (peer == me) continue;
        CCTUNE_NCCL_CHECK(ncclSend(dev + me * bytes, bytes, ncclUint8, peer, comm, s), comm);
        CCTUNE_NCCL_CHECK(ncclRecv(dev + peer * bytes, bytes, ncclUint8, peer, comm, s), comm);
      }
      CCTUNE_NCCL_CHECK(ncclGroupEnd(), comm);
    }
    CCTUNE_CUDA_CHECK(cudaMemcpyAsync(host, dev, all.size(), cudaMemcpyDeviceToHost, s));
    CCTUNE_CUDA_CHECK(cudaStreamSynchronize(s));
  } catch (...) {
    ctx_->comm.mark_failed();
    throw;
  }
  std::memcpy(all.data(), host, all.size());
  return all;
}

void NcclRankComm::barrier() {
  const std::uint8_t one = 1;
  (void)exchange(&one, 1);
}

template <class Op>
void NcclRankComm::allreduce(std::span<double> values, Op op) {
  const std::size_t bytes = values.size_bytes();
  const std::vector<std::byte> all = exchange(values.data(), bytes);
  // Rank order on every rank: bit-identical results everywhere.
  std::vector<double> acc(values.size());
  std::memcpy(acc.data(), all.data(), bytes);
  for (int r = 1; r < size(); ++r) {
    const std::byte* block = all.data() + static_cast<std::size_t>(r) * bytes;
    for (std::size_t i = 0; i < values.size(); ++i) {
      double v;
      std::memcpy(&v, block + i * sizeof(double), sizeof(double));
      acc[i] = op(acc[i], v);
    }
  }
  std::copy(acc.begin(), acc.end(), values.begin());
}

void NcclRankComm::allreduce_sum(std::span<double> values) {
  allreduce(values, [](double a, double b) { return a + b; });
}

void NcclRankComm::allreduce_max(std::span<double> values) {
  allreduce(values, [](double a, double b) { return b > a ? b : a; });
}

void NcclRankComm::broadcast_bytes(void* data, std::size_t bytes, int root) {
  if (bytes == 0 || size() == 1) return;
  reserve(bytes);
  auto* dev = device_.as<std::byte>();
  cudaStream_t s = ctx_->ctl_stream.get();
  ncclComm_t comm = ctx_->nccl();
  try {
    if (rank() == root) {
      std::memcpy(host_.get(), data, bytes);
      CCTUNE_CUDA_CHECK(cudaMemcpyAsync(dev, host_.get(), bytes, cudaMemcpyHostToDevice, s));
      CCTUNE_NCCL_CHECK(ncclGroupStart(), comm);
      for (int peer = 0; peer < size(); ++peer)
        if (peer != root) CCTUNE_NCCL_CHECK(ncclSend(dev, bytes, ncclUint8, peer, comm, s), comm);
      CCTUNE_NCCL_CHECK(ncclGroupEnd(), comm);
      CCTUNE_CUDA_CHECK(cudaStreamSynchronize(s));
    } else {
      CCTUNE_NCCL_CHECK(ncclRecv(dev, bytes, ncclUint8, root, comm, s), comm);
      CCTUNE_CUDA_CHECK(cudaMemcpyAsync(host_.get(), dev, bytes, cudaMemcpyDeviceToHost, s));
      CCTUNE_CUDA_CHECK(cudaStreamSynchronize(s));
      std::memcpy(data, host_.get(), bytes);
    }
  } catch (...) {
    ctx_->comm.mark_failed();
    throw;
  }
}

void NcclRankComm::broadcast(std::string& data, int root) {
  std::uint64_t length = data.size();
  broadcast_bytes(&length, sizeof length, root);
  data.resize(length);
  broadcast_bytes(data.data(), length, root);
}

std::vector<std::string> NcclRankComm::allgather(const std::string& mine) {
  const std::uint64_t my_length = mine.size();
  const std::vector<std::byte> lengths_raw = exchange(&my_length, sizeof my_length);
  std::vector<std::uint64_t> lengths(size());
  std::memcpy(lengths.data(), lengths_raw.data(), lengths_raw.size());
  const std::uint64_t block = *std::max_element(lengths.begin(), lengths.end());
  std::string padded = mine;
  padded.resize(block);
  const std::vector<std::byte> all = exchange(padded.data(), block);
  std::vector<std::string> out(size());
  for (int r = 0; r < size(); ++r)
    out[r].assign(reinterpret_cast<const char*>(all.data()) + r * block, lengths[r]);
  return out;
}

void NcclRankComm::send_bytes(const void* data, std::size_t bytes, int peer) {
  if (bytes == 0) return;
  reserve(bytes);
  cudaStream_t s = ctx_->ctl_stream.get();
  ncclComm_t comm = ctx_->nccl();
  try {
    std::memcpy(host_.get(), data, bytes);
    CCTUNE_CUDA_CHECK(cudaMemcpyAsync(device_.get(), host_.get(), bytes, cudaMemcpyHostToDevice, s));
    CCTUNE_NCCL_CHECK(ncclSend(device_.get(), bytes, ncclUint8, peer, comm, s), comm);
    CCTUNE_CUDA_CHECK(cudaStreamSynchronize(s));
  } catch (...) {
    ctx_->comm.mark_failed();
    throw;
  }
}

void NcclRankComm::recv_bytes(void* data, std::size_t bytes, int peer) {
  if (bytes == 0) return;
  reserve(bytes);
  cudaStream_t s = ctx_->ctl_stream.get();
  ncclComm_t comm = ctx_->nccl();
  try {
    CCTUNE_NCCL_CHECK(ncclRecv(device_.get(), bytes, ncclUint8, peer, comm, s), comm);
    CCTUNE_CUDA_CHECK(cudaMemcpyAsync(host_.get(), device_.get(), bytes, cudaMemcpyDeviceToHost, s));
    CCTUNE_CUDA_CHECK(cudaStreamSynchronize(s));
    std::memcpy(data, host_.get(), bytes);
  } catch (...) {
    ctx_->comm.mark_failed();
    throw;
  }
}

void NcclRankComm::send(const std::string& data, int peer, int /*tag*/) {
  const std::uint64_t length = data.size();
  send_bytes(&length, sizeof length, peer);
  send_bytes(data.data(), length, peer);
}

std::string NcclRankComm::recv(int peer, int /*tag*/) {
  std::uint64_t length = 0;
  recv_bytes(&length, sizeof length, peer);
  std::string data(length, '\0');
  recv_bytes(data.data(), length, peer);
  return data;
}

}  // namespace cctune::nccl_detail
