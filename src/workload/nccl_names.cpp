#include "workload/nccl_names.hpp"

#include <array>
#include <utility>

namespace cctune::workload {

std::optional<CallKindOf> nccl_func_kind(std::string_view name) {
  static constexpr std::array<std::pair<std::string_view, Collective>, 9> collectives{{
      {"AllReduce", Collective::AllReduce}, {"AllGather", Collective::AllGather},
      {"ReduceScatter", Collective::ReduceScatter}, {"Broadcast", Collective::Broadcast},
      {"Reduce", Collective::Reduce}, {"AlltoAll", Collective::AllToAll}, {"AllToAll", Collective::AllToAll},
      {"Gather", Collective::Gather}, {"Scatter", Collective::Scatter}}};
  for (const auto& [n, c] : collectives)
    if (name == n) return CallKindOf{CallKind::Collective, c};
  if (name == "Send") return CallKindOf{CallKind::Send, Collective::SendRecv};
  if (name == "Recv") return CallKindOf{CallKind::Recv, Collective::SendRecv};
  return std::nullopt;
}

std::optional<DType> dtype_from_nccl(int code) {
  static constexpr std::array<DType, 12> by_code{DType::Int8,    DType::Uint8,   DType::Int32,   DType::Uint32,
                                                 DType::Int64,   DType::Uint64,  DType::Float16, DType::Float32,
                                                 DType::Float64, DType::BFloat16, DType::Float8e4m3, DType::Float8e5m2};
  if (code < 0 || code >= static_cast<int>(by_code.size())) return std::nullopt;
  return by_code[static_cast<std::size_t>(code)];
}

std::optional<ReduceOp> op_from_nccl(int code) {
  static constexpr std::array<ReduceOp, 5> by_code{ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Max, ReduceOp::Min, ReduceOp::Avg};
  if (code < 0 || code >= static_cast<int>(by_code.size())) return std::nullopt;
  return by_code[static_cast<std::size_t>(code)];
}

std::optional<DType> dtype_from_torch(std::string_view name) {
  static constexpr std::array<std::pair<std::string_view, DType>, 13> names{{
      {"Float", DType::Float32}, {"Half", DType::Float16}, {"BFloat16", DType::BFloat16}, {"Double", DType::Float64},
      {"Int", DType::Int32}, {"Long", DType::Int64}, {"Byte", DType::Uint8}, {"Char", DType::Int8},
      {"Bool", DType::Uint8}, {"UInt32", DType::Uint32}, {"UInt64", DType::Uint64},
      {"Float8_e4m3fn", DType::Float8e4m3}, {"Float8_e5m2", DType::Float8e5m2}}};
  for (const auto& [n, t] : names)
    if (name == n) return t;
  return std::nullopt;
}

CallShape make_shape(CallKindOf kind, DType t, std::optional<ReduceOp> op, int root, std::uint64_t count, int nranks) {
  CallShape s;
  s.kind = kind.kind;
  s.collective = kind.kind == CallKind::Collective ? kind.collective : Collective::SendRecv;
  s.dtype = t;
  if (kind.kind == CallKind::Collective && is_reduction(kind.collective)) s.op = op;
  if (kind.kind == CallKind::Collective && is_rooted(kind.collective)) s.root = root;
  s.count = count;
  s.bytes = nbytes_of(s.kind, s.collective, t, count, nranks);
  return s;
}

}  // namespace cctune::workload
