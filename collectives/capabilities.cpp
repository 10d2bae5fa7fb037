#include "collectives/capabilities.hpp"

namespace cctune {
namespace {

struct Support {
  bool mpi = false, nccl = false;
  bool of(BackendKind b) const { return b == BackendKind::Mpi ? mpi : nccl; }
};

// Every case is listed, no default: a new DType fails the build here until it is decided.
Support support_of(DType t) {
  switch (t) {
    case DType::Int8:
    case DType::Uint8:
    case DType::Int32:
    case DType::Uint32:
    case DType::Int64:
    case DType::Uint64:
    case DType::Float32:
    case DType::Float64: return {true, true};
    // MPI has no portable 16-bit or 8-bit float types (MPI 4.1 names none; Open MPI's are
    // extensions). NCCL runs every type of the enum (it is NCCL's list); fp8 needs NCCL >= 2.24
    // and an sm_90 GPU: only the worker knows those, and it skips such points with the reason.
    case DType::Float16:
    case DType::BFloat16:
    case DType::Float8e4m3:
    case DType::Float8e5m2: return {false, true};
  }
  return {};
}

Support support_of(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Prod:
    case ReduceOp::Max:
    case ReduceOp::Min: return {true, true};
    case ReduceOp::Avg: return {false, true};  // MPI has no average; MPI_SUM then a division is another operation
  }
  return {};
}

}  // namespace

std::string to_string(BackendKind b) { return b == BackendKind::Nccl ? "nccl" : "mpi"; }

std::optional<Incapability> incapability(BackendKind backend, Collective c, DType dtype, ReduceOp op) {
  const std::string name = to_string(backend);
  const std::string other = backend == BackendKind::Mpi ? "use --backend nccl or another" : "use another";
  const bool type_ok = support_of(dtype).of(backend);
  if (!type_ok)
    return Incapability{"-d " + to_string(dtype) + ": the " + name + " backend has no " + to_string(dtype) + " type" +
                            (backend == BackendKind::Mpi ? " (MPI has no portable one)" : ""),
                        other + " -d"};
  if (!is_reduction(c)) return std::nullopt;
  const bool op_ok = support_of(op).of(backend);
  if (!op_ok)
    return Incapability{"--op " + to_string(op) + ": the " + name + " backend has no " + to_string(op) + " reduction", other + " --op"};
  return std::nullopt;
}

}  // namespace cctune
