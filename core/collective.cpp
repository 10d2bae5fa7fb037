#include "core/collective.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <sstream>

#include "core/collective_traits.hpp"
#include "core/error.hpp"
#include "core/units.hpp"

namespace cctune {
namespace {

std::string lower(std::string_view s) {
  std::string out;
  for (char c : s)
    if (c != '_' && c != '-') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}


struct DTypeInfo {
  DType type;
  const char* name;
  const char* table;
  const char* alias;
  std::size_t size;
};
constexpr std::array<DTypeInfo, 12> dtype_info{{
    {DType::Int8, "int8", "int8", "char", 1},
    {DType::Uint8, "uint8", "uint8", "uchar", 1},
    {DType::Int32, "int32", "int32", "int", 4},
    {DType::Uint32, "uint32", "uint32", "uint", 4},
    {DType::Int64, "int64", "int64", "long", 8},
    {DType::Uint64, "uint64", "uint64", "ulong", 8},
    {DType::Float16, "float16", "half", "half", 2},
    {DType::Float32, "float32", "float", "float", 4},
    {DType::Float64, "float64", "double", "double", 8},
    {DType::BFloat16, "bfloat16", "bfloat16", "bf16", 2},
    // nccl-tests spells them f8e4m3/f8e5m2; fp8e4m3 and fp8_e4m3 are accepted too.
    {DType::Float8e4m3, "float8e4m3", "f8e4m3", "fp8e4m3", 1},
    {DType::Float8e5m2, "float8e5m2", "f8e5m2", "fp8e5m2", 1},
}};

constexpr std::array<std::pair<ReduceOp, const char*>, 5> op_names{{
    {ReduceOp::Sum, "sum"}, {ReduceOp::Prod, "prod"}, {ReduceOp::Max, "max"}, {ReduceOp::Min, "min"}, {ReduceOp::Avg, "avg"},
}};

const DTypeInfo& info(DType t) {
  for (const auto& i : dtype_info)
    if (i.type == t) return i;
  throw std::logic_error("unknown DType");
}

}  // namespace

std::string to_string(Collective c) { return std::string(traits(c).name); }
std::string to_string(DType t) { return info(t).name; }
std::string table_name(DType t) { return info(t).table; }
std::string to_string(ReduceOp op) {
  for (const auto& [v, n] : op_names)
    if (v == op) return n;
  return "unknown";
}

const std::vector<Collective>& all_collectives() {
  static const std::vector<Collective> all = [] {
    std::vector<Collective> v;
    for (const CollectiveTraits& t : collective_table) v.push_back(t.collective);
    return v;
  }();
  return all;
}

const std::vector<DType>& all_dtypes() {
  static const std::vector<DType> all = [] {
    std::vector<DType> v;
    for (const auto& i : dtype_info) v.push_back(i.type);
    return v;
  }();
  return all;
}

const std::vector<ReduceOp>& all_reduce_ops() {
  static const std::vector<ReduceOp> all = [] {
    std::vector<ReduceOp> v;
    for (const auto& [op, n] : op_names) v.push_back(op);
    return v;
  }();
  return all;
}

Collective parse_collective(std::string_view s) {
  if (const auto c = collective_named(lower(s))) return *c;
  std::string allowed;
  for (const CollectiveTraits& t : collective_table) allowed += (allowed.empty() ? "" : ", ") + std::string(t.name);
  throw UsageError("unknown collective '" + std::string(s) + "'", "use one of: " + allowed + " (or all)");
}

std::vector<Collective> parse_collective_list(std::string_view comma_separated) {
  std::vector<Collective> out;
  std::stringstream in{std::string(comma_separated)};
  std::string item;
  while (std::getline(in, item, ','))
    if (item == "all") {
      for (Collective c : all_collectives())
        if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
    } else if (!item.empty()) {
      const Collective c = parse_collective(item);
      if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
    }
  if (out.empty()) throw UsageError("--collectives is empty", "name at least one, e.g. allreduce");
  return out;
}

DType parse_dtype(std::string_view s) {
  const std::string key = lower(s);
  for (const auto& i : dtype_info)
    if (key == i.name || key == i.alias || key == i.table) return i.type;
  std::string allowed;
  for (const auto& i : dtype_info) allowed += std::string(allowed.empty() ? "" : ", ") + i.name;
  throw UsageError("unknown data type '" + std::string(s) + "'", "use one of: " + allowed);
}

ReduceOp parse_reduce_op(std::string_view s) {
  const std::string key = lower(s);
  for (const auto& [v, n] : op_names)
    if (key == n) return v;
  throw UsageError("unknown reduction op '" + std::string(s) + "'", "use one of: sum, prod, max, min, avg");
}

std::size_t dtype_size(DType t) { return info(t).size; }
bool is_fp8(DType t) { return t == DType::Float8e4m3 || t == DType::Float8e5m2; }

bool is_reduction(Collective c) { return traits(c).reduction; }

bool is_rooted(Collective c) { return traits(c).rooted; }

CollectiveBytes collective_bytes(Collective c, std::uint64_t requested_bytes, DType t, int nranks) {
  const std::uint64_t w = dtype_size(t);
  const std::uint64_t n = static_cast<std::uint64_t>(std::max(nranks, 1));
  const std::uint64_t count = requested_bytes / w;
  CollectiveBytes b;
  const CountRule rule = traits(c).counts;
  b.param_count = rule == CountRule::Whole ? count : count / n;
  const std::uint64_t all = rule == CountRule::Whole ? b.param_count : b.param_count * n;  // every rank's share
  b.send_count = rule == CountRule::Scattered || rule == CountRule::Exchanged ? all : b.param_count;
  b.recv_count = rule == CountRule::Gathered || rule == CountRule::Exchanged ? all : b.param_count;
  b.bw_bytes = all * w;
  b.size_bytes = std::max(b.send_count, b.recv_count) * w;
  return b;
}

std::uint64_t request_granule(Collective c, DType t, int nranks) {
  return dtype_size(t) * (splits_over_ranks(c) ? static_cast<std::uint64_t>(std::max(nranks, 1)) : 1);
}

double bus_factor(Collective c, int nranks) {
  const double n = std::max(nranks, 1);
  switch (traits(c).bus) {
    case BusRule::TwiceShare: return 2.0 * (n - 1) / n;
    case BusRule::Share: return (n - 1) / n;
    case BusRule::One: return 1.0;
  }
  return 1.0;
}

Bandwidth bandwidth(Collective c, std::uint64_t bw_bytes, double time_us, int nranks) {
  Bandwidth b;
  if (time_us <= 0) return b;
  b.algbw_GBps = static_cast<double>(bw_bytes) / bytes_per_GB / (time_us * 1e-6);
  b.busbw_GBps = b.algbw_GBps * bus_factor(c, nranks);
  return b;
}

}  // namespace cctune
