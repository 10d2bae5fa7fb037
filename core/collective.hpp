#pragma once
// Collectives, data types and reduction ops, with the byte counts and bus-bandwidth
// factors of nccl-tests (docs/PERFORMANCE.md explains them).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cctune {

enum class Collective { AllReduce, AllGather, ReduceScatter, Broadcast, Reduce, AllToAll, SendRecv, Gather, Scatter };
// Float8e4m3/Float8e5m2: NCCL >= 2.24 on sm_90+ only (docs/NCCL_BACKEND.md); MPI has no fp8.
enum class DType { Int8, Uint8, Int32, Uint32, Int64, Uint64, Float16, Float32, Float64, BFloat16, Float8e4m3, Float8e5m2 };
enum class ReduceOp { Sum, Prod, Max, Min, Avg };

std::string to_string(Collective c);   // "allreduce"
std::string to_string(DType t);        // "float32"
std::string to_string(ReduceOp op);    // "sum"
// nccl-tests' spellings for the table: "float", "half", "bfloat16", "int32", "f8e4m3"...
std::string table_name(DType t);
// Throw UsageError listing what is allowed. Accept nccl-tests spellings too ("float", "half").
Collective parse_collective(std::string_view s);
DType parse_dtype(std::string_view s);
ReduceOp parse_reduce_op(std::string_view s);
// "all" (alone or in the list) names every collective, in all_collectives()' order.
std::vector<Collective> parse_collective_list(std::string_view comma_separated);
const std::vector<Collective>& all_collectives();
// Every data type and reduction op, in declaration order: what `-d all` and `--op all` name.
const std::vector<DType>& all_dtypes();
const std::vector<ReduceOp>& all_reduce_ops();

std::size_t dtype_size(DType t);
bool is_fp8(DType t);
bool is_reduction(Collective c);
// Broadcast, reduce, gather and scatter: one rank (the root) is the source or the sink.
bool is_rooted(Collective c);

// Element counts and bytes of one operation, as nccl-tests derives them from the
// requested size: `param_count` is the count passed to the call, `size_bytes` is
// max(send, recv) per rank (the "size" column), `bw_bytes` the numerator of algbw.
struct CollectiveBytes {
  std::uint64_t param_count = 0;
  std::uint64_t send_count = 0;
  std::uint64_t recv_count = 0;
  std::uint64_t size_bytes = 0;
  std::uint64_t bw_bytes = 0;
};

CollectiveBytes collective_bytes(Collective c, std::uint64_t requested_bytes, DType t, int nranks);

// The smallest request that moves data: one element, or one per rank for collectives
// that split the buffer across ranks (allgather, reducescatter, alltoall, gather, scatter).
std::uint64_t request_granule(Collective c, DType t, int nranks);

// busbw / algbw.
double bus_factor(Collective c, int nranks);

struct Bandwidth {
  double algbw_GBps = 0;
  double busbw_GBps = 0;
};
Bandwidth bandwidth(Collective c, std::uint64_t bw_bytes, double time_us, int nranks);

}  // namespace cctune
