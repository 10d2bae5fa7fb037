#pragma once
// cctune's types and ops as MPI handles, and a dispatch from DType to the C++ element type:
// shared by the backend and its per-collective layouts.
#include <mpi.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "core/collective.hpp"
#include "core/error.hpp"

namespace cctune::mpi_detail {

inline MPI_Datatype mpi_type(DType t) {
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

inline MPI_Op mpi_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return MPI_SUM;
    case ReduceOp::Prod: return MPI_PROD;
    case ReduceOp::Max: return MPI_MAX;
    case ReduceOp::Min: return MPI_MIN;
    default: return MPI_OP_NULL;
  }
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

inline void check_mpi(int rc, const char* call) {
  if (rc != MPI_SUCCESS) throw RuntimeFailure(std::string(call) + " failed with MPI error " + std::to_string(rc));
}

}  // namespace cctune::mpi_detail
