#include "collectives/capabilities.hpp"

namespace cctune {
namespace {

// MPI has no portable 16-bit or 8-bit float types (MPI 4.1 names none; Open MPI's are extensions).
// Every case is listed, no default: a new DType fails the build here until it is decided.
bool mpi_has(DType t) {
  switch (t) {
    case DType::Int8:
    case DType::Uint8:
    case DType::Int32:
    case DType::Uint32:
    case DType::Int64:
    case DType::Uint64:
    case DType::Float32:
    case DType::Float64: return true;
    case DType::Float16:
    case DType::BFloat16:
    case DType::Float8e4m3:
    case DType::Float8e5m2: return false;
  }
  return false;
}

bool mpi_has(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Prod:
    case ReduceOp::Max:
    case ReduceOp::Min: return true;
    case ReduceOp::Avg: return false;  // MPI has no average; MPI_SUM then a division is another operation
  }
  return false;
}

// NCCL runs every type of the enum (it is NCCL's list) and every op. fp8 needs NCCL >= 2.24
// and an sm_90 GPU: only the worker knows those, and it skips such points with the reason.
bool nccl_has(DType t) {
  switch (t) {
    case DType::Int8:
    case DType::Uint8:
    case DType::Int32:
    case DType::Uint32:
    case DType::Int64:
    case DType::Uint64:
    case DType::Float16:
    case DType::Float32:
    case DType::Float64:
    case DType::BFloat16:
    case DType::Float8e4m3:
    case DType::Float8e5m2: return true;
  }
  return false;
}

bool nccl_has(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Prod:
    case ReduceOp::Max:
    case ReduceOp::Min:
    case ReduceOp::Avg: return true;
  }
  return false;
}

}  // namespace

std::string to_string(BackendKind b) { return b == BackendKind::Nccl ? "nccl" : "mpi"; }

std::optional<Incapability> incapability(BackendKind backend, Collective c, DType dtype, ReduceOp op) {
  const std::string name = to_string(backend);
  const std::string other = backend == BackendKind::Mpi ? "use --backend nccl or another" : "use another";
  const bool type_ok = backend == BackendKind::Mpi ? mpi_has(dtype) : nccl_has(dtype);
  if (!type_ok)
    return Incapability{"-d " + to_string(dtype) + ": the " + name + " backend has no " + to_string(dtype) + " type" +
                            (backend == BackendKind::Mpi ? " (MPI has no portable one)" : ""),
                        other + " -d"};
  if (!is_reduction(c)) return std::nullopt;
  const bool op_ok = backend == BackendKind::Mpi ? mpi_has(op) : nccl_has(op);
  if (!op_ok)
    return Incapability{"--op " + to_string(op) + ": the " + name + " backend has no " + to_string(op) + " reduction", other + " --op"};
  return std::nullopt;
}

}  // namespace cctune
