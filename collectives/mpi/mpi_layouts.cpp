#include "collectives/mpi/mpi_layouts.hpp"

#include <algorithm>
#include <cstring>

#include "collectives/mpi/mpi_types.hpp"
#include "core/data_pattern.hpp"
#include "core/expected_layout.hpp"

namespace cctune::mpi_detail {
namespace {

// The region this rank's result lands in: a pointer and an element count.
struct Region {
  std::byte* data = nullptr;
  std::uint64_t count = 0;
};

Region output_region(const PointSpec& spec, RankInfo me, HostBuffers buf) {
  const std::uint64_t c = spec.bytes.param_count;
  const std::uint64_t n = static_cast<std::uint64_t>(me.size);
  const std::uint64_t w = dtype_size(spec.dtype);
  switch (spec.collective) {
    case Collective::AllGather:
    case Collective::Gather:
    case Collective::AllToAll: return {buf.recv, c * n};
    case Collective::Scatter:  // in-place: nccl-tests' recvbuff = sendbuff + rank*count
      return {spec.in_place ? buf.send + static_cast<std::uint64_t>(me.rank) * c * w : buf.recv, c};
    default: return {buf.recv, c};
  }
}

template <typename T>
void fill(std::byte* data, std::uint64_t count, int rank) {
  auto* p = reinterpret_cast<T*>(data);
  for (std::uint64_t i = 0; i < count; ++i) p[i] = static_cast<T>(pattern_value(rank, i));
}

// Where the input of an in-place operation starts, and how many elements it has.
Region in_place_input(const PointSpec& spec, RankInfo me, HostBuffers buf) {
  const std::uint64_t c = spec.bytes.param_count;
  const std::uint64_t offset = static_cast<std::uint64_t>(me.rank) * c * dtype_size(spec.dtype);
  switch (spec.collective) {
    case Collective::AllGather:
    case Collective::Gather: return {buf.recv + offset, c};  // this rank's block of the output
    case Collective::Scatter: return {buf.send, spec.bytes.send_count};
    case Collective::Broadcast: return {buf.recv, me.rank == spec.root ? c : 0};  // only the root has data
    default: return {buf.recv, spec.bytes.send_count};
  }
}

// The reduction of every rank's input element `index`, computed in T in rank order.
template <typename T>
T reduced(ReduceOp op, int nranks, std::uint64_t index) {
  T acc = static_cast<T>(pattern_value(0, index));
  for (int r = 1; r < nranks; ++r) {
    const T v = static_cast<T>(pattern_value(r, index));
    switch (op) {
      case ReduceOp::Prod: acc = static_cast<T>(acc * v); break;
      case ReduceOp::Max: acc = std::max(acc, v); break;
      case ReduceOp::Min: acc = std::min(acc, v); break;
      default: acc = static_cast<T>(acc + v); break;
    }
  }
  return acc;
}

template <typename T, typename Expected>
long count_mismatch(Region out, Expected&& expected) {
  const auto* p = reinterpret_cast<const T*>(out.data);
  long wrong = 0;
  for (std::uint64_t i = 0; i < out.count; ++i)
    if (p[i] != expected(i)) ++wrong;
  return wrong;
}

// Expected values from core/expected_layout.hpp, the definition the NCCL check kernels use too.
template <typename T>
long check_typed(const PointSpec& spec, RankInfo me, Region out) {
  const ExpectedLayout layout{spec.collective, me.rank, me.size, spec.root, spec.bytes.param_count};
  return count_mismatch<T>(out, [&](std::uint64_t i) {
    const ExpectedSource src = expected_source(layout, i);
    if (src.rank == kReducedOverRanks) return reduced<T>(spec.op, me.size, src.index);
    return static_cast<T>(pattern_value(src.rank, src.index));
  });
}

}  // namespace

std::string placement_unsupported(const PointSpec& spec) {
  if (spec.collective == Collective::Broadcast && !spec.in_place)
    return "MPI_Bcast has one buffer: the MPI backend measures broadcast in-place only";
  return {};
}

void fill_inputs(const PointSpec& spec, RankInfo me, HostBuffers buf) {
  const std::uint64_t w = dtype_size(spec.dtype);
  const Region out = output_region(spec, me, buf);
  dispatch(spec.dtype, [&](auto tag) {
    using T = decltype(tag);
    if (!spec.in_place) {
      std::memset(out.data, 0, out.count * w);
      fill<T>(buf.send, spec.bytes.send_count, me.rank);
      return;
    }
    // In-place inputs share memory with the output: zero the whole receive side first.
    std::memset(buf.recv, 0, std::max(spec.bytes.send_count, spec.bytes.recv_count) * w);
    const Region in = in_place_input(spec, me, buf);
    fill<T>(in.data, in.count, me.rank);
    if (spec.collective == Collective::Scatter && me.rank != spec.root) std::memset(out.data, 0, out.count * w);
  });
}

void run_collective(const PointSpec& spec, RankInfo me, HostBuffers buf, MPI_Comm comm) {
  const MPI_Datatype t = mpi_type(spec.dtype);
  const MPI_Op op = mpi_op(spec.op);
  const int c = static_cast<int>(spec.bytes.param_count);
  const bool ip = spec.in_place;
  const bool root = me.rank == spec.root;
  std::byte* const s = buf.send;
  std::byte* const r = buf.recv;
  std::byte* const my_block = (spec.collective == Collective::Scatter ? s : r) + static_cast<std::size_t>(me.rank) * c * dtype_size(spec.dtype);
  switch (spec.collective) {
    case Collective::AllReduce: return check_mpi(MPI_Allreduce(ip ? MPI_IN_PLACE : s, r, c, t, op, comm), "MPI_Allreduce");
    case Collective::AllGather: return check_mpi(MPI_Allgather(ip ? MPI_IN_PLACE : s, c, t, r, c, t, comm), "MPI_Allgather");
    case Collective::ReduceScatter:
      return check_mpi(MPI_Reduce_scatter_block(ip ? MPI_IN_PLACE : s, r, c, t, op, comm), "MPI_Reduce_scatter_block");
    case Collective::AllToAll: return check_mpi(MPI_Alltoall(ip ? MPI_IN_PLACE : s, c, t, r, c, t, comm), "MPI_Alltoall");
    case Collective::Broadcast: return check_mpi(MPI_Bcast(r, c, t, spec.root, comm), "MPI_Bcast");
    case Collective::Reduce: {
      // MPI_IN_PLACE is the root's alone; the other ranks send from the shared buffer.
      const void* src = ip ? (root ? MPI_IN_PLACE : r) : s;
      return check_mpi(MPI_Reduce(src, root || !ip ? r : nullptr, c, t, op, spec.root, comm), "MPI_Reduce");
    }
    case Collective::Gather: {
      const void* src = ip ? (root ? MPI_IN_PLACE : my_block) : s;
      return check_mpi(MPI_Gather(src, c, t, root ? r : nullptr, c, t, spec.root, comm), "MPI_Gather");
    }
    case Collective::Scatter: {
      void* dst = ip ? (root ? MPI_IN_PLACE : my_block) : r;
      return check_mpi(MPI_Scatter(root || !ip ? s : nullptr, c, t, dst, c, t, spec.root, comm), "MPI_Scatter");
    }
    case Collective::SendRecv: {
      // nccl-tests' ring: send to the next rank, receive from the previous one.
      const int next = (me.rank + 1) % me.size;
      const int prev = (me.rank + me.size - 1) % me.size;
      if (ip) return check_mpi(MPI_Sendrecv_replace(r, c, t, next, 0, prev, 0, comm, MPI_STATUS_IGNORE), "MPI_Sendrecv_replace");
      return check_mpi(MPI_Sendrecv(s, c, t, next, 0, r, c, t, prev, 0, comm, MPI_STATUS_IGNORE), "MPI_Sendrecv");
    }
  }
}

long count_wrong_elements(const PointSpec& spec, RankInfo me, HostBuffers buf) {
  const bool sink_only = spec.collective == Collective::Reduce || spec.collective == Collective::Gather;
  if (sink_only && me.rank != spec.root) return 0;
  const Region out = output_region(spec, me, buf);
  return dispatch(spec.dtype, [&](auto tag) -> long { return check_typed<decltype(tag)>(spec, me, out); });
}

}  // namespace cctune::mpi_detail
