#include "collectives/mpi/mpi_backend.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "collectives/mpi/host_batch.hpp"
#include "collectives/mpi/mpi_layouts.hpp"
#include "collectives/mpi/mpi_types.hpp"
#include "core/error.hpp"
#include "core/units.hpp"

namespace cctune {

using mpi_detail::check_mpi;
using mpi_detail::mpi_op;
using mpi_detail::mpi_type;

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
    return "MPI has no " + to_string(spec.dtype) + " type (use float32, float64 or an integer type; --backend nccl runs " +
           to_string(spec.dtype) + ")";
  if (is_reduction(spec.collective) && mpi_op(spec.op) == MPI_OP_NULL)
    return "MPI has no '" + to_string(spec.op) + "' reduction";
  if (is_rooted(spec.collective) && (spec.root < 0 || spec.root >= size_))
    return "root " + std::to_string(spec.root) + " is not a rank of " + std::to_string(size_);
  if (std::string why = mpi_detail::placement_unsupported(spec); !why.empty()) return why;
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
  // In-place layouts keep the whole input on the receive side (allreduce, reducescatter, alltoall).
  const std::uint64_t recv_bytes = (spec.in_place ? std::max(spec.bytes.send_count, spec.bytes.recv_count) : spec.bytes.recv_count) * w;
  if (send_.size() < send_bytes) send_.resize(send_bytes);
  if (recv_.size() < recv_bytes) recv_.resize(recv_bytes);
  mpi_detail::fill_inputs(spec, {rank_, size_}, {send_.data(), recv_.data()});
}

void MpiBackend::run_once() { mpi_detail::run_collective(spec_, {rank_, size_}, {send_.data(), recv_.data()}, comm_); }

BatchTiming MpiBackend::run_batch(const BatchRequest& batch) {
  // Every rank asks its own flag; MPI_MAX makes one rank's request everyone's answer.
  auto stop_agreed = [&] {
    int mine = (*batch.stop_requested)() ? 1 : 0, any = 0;
    check_mpi(MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, comm_), "MPI_Allreduce (stop check)");
    return any != 0;
  };
  const auto op = [this] { run_once(); };
  const auto clock_us = [] { return MPI_Wtime() * 1e6; };
  // Production's batches are the plain loop; only an injected step before launch adds to it.
  if (!before_launch_) return mpi_detail::time_host_batch(batch, op, stop_agreed, clock_us);
  return mpi_detail::time_host_batch(batch, op, stop_agreed, clock_us, before_launch_);
}

long MpiBackend::count_wrong() {
  return mpi_detail::count_wrong_elements(spec_, {rank_, size_}, {send_.data(), recv_.data()});
}

}  // namespace cctune
