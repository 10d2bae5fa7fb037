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

namespace {

// NCCL's names are ASCII. Not libc's tolower(): it consults the locale on every character, and
// the profiler half looks names up on the job's launch path (bench/profiler_events_bench).
constexpr char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// Equal ignoring ASCII case and underscores ("NVLSTree" == "nvls_tree").
bool same_name(std::string_view a, std::string_view b) {
  std::size_t i = 0, k = 0;
  while (true) {
    while (i < a.size() && a[i] == '_') ++i;
    while (k < b.size() && b[k] == '_') ++k;
    if (i == a.size() || k == b.size()) return i == a.size() && k == b.size();
    if (ascii_lower(a[i]) != ascii_lower(b[k])) return false;
    ++i, ++k;
  }
}

}  // namespace

std::optional<DType> dtype_from_nccl_name(std::string_view name) {
  static constexpr std::array<std::string_view, 12> by_code{"ncclInt8",    "ncclUint8",   "ncclInt32",   "ncclUint32",
                                                            "ncclInt64",   "ncclUint64",  "ncclFloat16", "ncclFloat32",
                                                            "ncclFloat64", "ncclBfloat16", "ncclFloat8e4m3", "ncclFloat8e5m2"};
  // NCCL's own spelling first: the profiler half asks on the launch path.
  for (std::size_t i = 0; i < by_code.size(); ++i)
    if (name == by_code[i]) return dtype_from_nccl(static_cast<int>(i));
  for (std::size_t i = 0; i < by_code.size(); ++i)
    if (same_name(name, by_code[i])) return dtype_from_nccl(static_cast<int>(i));
  return std::nullopt;
}

std::optional<Algorithm> algorithm_from_nccl_name(std::string_view name) {
  for (Algorithm a : all_algorithms())
    if (same_name(name, to_string(a))) return a;
  return std::nullopt;
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
  s.bytes = nbytes_of(s.kind, s.collective, t, count, nranks).value_or(0);  // 0: no call is that large
  return s;
}

}  // namespace cctune::workload
