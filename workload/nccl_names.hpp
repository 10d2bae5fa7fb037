#pragma once
// NCCL's and PyTorch's names and codes for calls, types and ops, as they appear in captures.
#include <cstdint>
#include <optional>
#include <string_view>

#include "workload/workload.hpp"

namespace cctune::workload {

struct CallKindOf {
  CallKind kind = CallKind::Collective;
  Collective collective = Collective::AllReduce;
};

// NCCL's function names in its COLL and TUNING lines ("AllReduce", "AlltoAll", "Send"...).
std::optional<CallKindOf> nccl_func_kind(std::string_view name);
// ncclDataType_t and ncclRedOp_t codes; ops past avg (PreMulSum, user ops) have no name here.
std::optional<DType> dtype_from_nccl(int code);
std::optional<ReduceOp> op_from_nccl(int code);
// The profiler interface's spellings: ncclDatatypeToString ("ncclFloat32", "ncclBfloat16")
// and NCCL's algorithm names ("Ring", "CollNetDirect", "NVLSTree"), any case.
std::optional<DType> dtype_from_nccl_name(std::string_view name);
std::optional<Algorithm> algorithm_from_nccl_name(std::string_view name);
// PyTorch's dtype names in flight-recorder dumps ("Float", "BFloat16", "Long"...).
std::optional<DType> dtype_from_torch(std::string_view name);

// A call's shape: op only for reductions, root only for rooted collectives, NCCL's nBytes.
CallShape make_shape(CallKindOf kind, DType t, std::optional<ReduceOp> op, int root, std::uint64_t count, int nranks);

}  // namespace cctune::workload
