#include "collectives/mpi/mpi_backend.hpp"

#include <cstring>
#include <fstream>
#include <sstream>

#include "collectives/mpi/host_batch.hpp"
#include "core/data_pattern.hpp"
#include "core/error.hpp"
#include "core/units.hpp"

namespace cctune {
namespace {

MPI_Datatype mpi_type(DType t) {
  switch (t) {
    case DType::Int8: return MPI_INT8_T;
    case DType::Uint8: return MPI_UINT8_T;
    case DType::Int32: return MPI_INT32_T;
    case DType::Uint32: return MPI_UINT32_T;
    case DType::Int64: return MPI_INT64_T;
    case DType::Uint64: return MPI_UINT64_T;
    case DType::Float32: return MPI_FLOAT;
    case DType::Float64: return MPI_DOUBLE;
    default: return MPI_DATATYPE_NULL;
  }
}

MPI_Op mpi_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return MPI_SUM;
    case ReduceOp::Prod: return MPI_PROD;
    case ReduceOp::Max: return MPI_MAX;
    case ReduceOp::Min: return MPI_MIN;
    default: return MPI_OP_NULL;
  }
}

template <typename T>
void fill(std::byte* data, std::uint64_t count, int rank, std::uint64_t first_index) {
  auto* p = reinterpret_cast<T*>(data);
  for (std::uint64_t i = 0; i < count; ++i) p[i] = static_cast<T>(pattern_value(rank, first_index + i));
}

template <typename T>
long count_mismatch(const std::byte* data, std::uint64_t count, auto&& expected) {
  const auto* p = reinterpret_cast<const T*>(data);
  long wrong = 0;
  for (std::uint64_t i = 0; i < count; ++i)
    if (p[i] != static_cast<T>(expected(i))) ++wrong;
  return wrong;
}

template <typename F>
decltype(auto) dispatch(DType t, F&& f) {
  switch (t) {
    case DType::Int8: return f(std::int8_t{});
    case DType::Uint8: return f(std::uint8_t{});
    case DType::Int32: return f(std::int32_t{});
    case DType::Uint32: return f(std::uint32_t{});
    case DType::Int64: return f(std::int64_t{});
    case DType::Uint64: return f(std::uint64_t{});
    case DType::Float32: return f(float{});
    case DType::Float64: return f(double{});
    default: throw std::logic_error("dtype not supported by the MPI backend");
  }
}

void check_mpi(int rc, const char* call) {
  if (rc != MPI_SUCCESS) throw RuntimeFailure(std::string(call) + " failed with MPI error " + std::to_string(rc));
}

}  // namespace

std::uint64_t available_host_memory() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::uint64_t kib = 0;
  std::string unit;
  while (in >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024;
  return 0;
}

MpiBackend::MpiBackend(MPI_Comm comm) : comm_(comm) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

std::string MpiBackend::unsupported_reason(const PointSpec& spec) const {
  if (mpi_type(spec.dtype) == MPI_DATATYPE_NULL)
    return "MPI has no " + to_string(spec.dtype) + " type (use float32, float64 or an integer type)";
  if (is_reduction(spec.collective) && mpi_op(spec.op) == MPI_OP_NULL)
    return "MPI has no '" + to_string(spec.op) + "' reduction";
  switch (spec.collective) {
    case Collective::AllReduce:
    case Collective::AllGather:
    case Collective::ReduceScatter: break;
    default: return "the MPI backend measures allreduce, allgather and reducescatter only";
  }
  if (spec.bytes.param_count == 0) return "size is smaller than one element per rank";
  return {};
}

void MpiBackend::reserve(std::uint64_t max_send_bytes, std::uint64_t max_recv_bytes, int ranks_on_node) {
  const std::uint64_t need = (max_send_bytes + max_recv_bytes) * static_cast<std::uint64_t>(std::max(1, ranks_on_node));
  const std::uint64_t avail = available_host_memory();
  if (avail > 0 && need > avail * 9 / 10)
    throw UsageError("the largest size needs " + format_size(need) + " of host memory for " +
                         std::to_string(ranks_on_node) + " rank(s) on this node, but only " + format_size(avail) +
                         " is available",
                     "lower -e/--max-bytes");
  send_.resize(max_send_bytes);
  recv_.resize(max_recv_bytes);
}

void MpiBackend::prepare(const PointSpec& spec) {
  spec_ = spec;
  const std::uint64_t w = dtype_size(spec.dtype);
  const std::uint64_t send_bytes = spec.bytes.send_count * w;
  const std::uint64_t recv_bytes = spec.bytes.recv_count * w;
  if (send_.size() < send_bytes) send_.resize(send_bytes);
  if (recv_.size() < recv_bytes) recv_.resize(recv_bytes);
  std::memset(recv_.data(), 0, recv_bytes);
  dispatch(spec.dtype, [&](auto tag) {
    using T = decltype(tag);
    if (spec.in_place && spec.collective == Collective::AllGather)
      // MPI_IN_PLACE allgather: this rank's block already sits at its slot of the output.
      fill<T>(recv_.data() + rank_ * send_bytes, spec.bytes.send_count, rank_, 0);
    else if (spec.in_place)
      fill<T>(recv_.data(), spec.bytes.send_count, rank_, 0);
    else
      fill<T>(send_.data(), spec.bytes.send_count, rank_, 0);
  });
}

void MpiBackend::run_once() {
  const MPI_Datatype t = mpi_type(spec_.dtype);
  const int count = static_cast<int>(spec_.bytes.param_count);
  const void* src = spec_.in_place ? MPI_IN_PLACE : send_.data();
  switch (spec_.collective) {
    case Collective::AllReduce:
      check_mpi(MPI_Allreduce(src, recv_.data(), count, t, mpi_op(spec_.op), comm_), "MPI_Allreduce");
      break;
    case Collective::AllGather:
      check_mpi(MPI_Allgather(src, count, t, recv_.data(), count, t, comm_), "MPI_Allgather");
      break;
    case Collective::ReduceScatter:
      check_mpi(MPI_Reduce_scatter_block(src, recv_.data(), count, t, mpi_op(spec_.op), comm_),
                "MPI_Reduce_scatter_block");
      break;
    default: throw std::logic_error("collective not supported by the MPI backend");
  }
}

BatchTiming MpiBackend::run_batch(const BatchRequest& batch) {
  // Every rank asks its own flag; MPI_MAX makes one rank's request everyone's answer.
  auto stop_agreed = [&] {
    int mine = (*batch.stop_requested)() ? 1 : 0, any = 0;
    check_mpi(MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, comm_), "MPI_Allreduce (stop check)");
    return any != 0;
  };
  return mpi_detail::time_host_batch(batch, [this] { run_once(); }, stop_agreed, [] { return MPI_Wtime() * 1e6; });
}

long MpiBackend::count_wrong() {
  const std::uint64_t pc = spec_.bytes.param_count;
  const int n = size_;
  const int me = rank_;
  return dispatch(spec_.dtype, [&](auto tag) -> long {
    using T = decltype(tag);
    switch (spec_.collective) {
      case Collective::AllReduce:
        return count_mismatch<T>(recv_.data(), pc, [&](std::uint64_t i) { return pattern_sum(n, i); });
      case Collective::AllGather:
        return count_mismatch<T>(recv_.data(), pc * n, [&](std::uint64_t i) { return pattern_value(static_cast<int>(i / pc), i % pc); });
      case Collective::ReduceScatter:
        return count_mismatch<T>(recv_.data(), pc, [&](std::uint64_t i) { return pattern_sum(n, me * pc + i); });
      default: return 0L;
    }
  });
}

}  // namespace cctune
