#include "workload/flight_recorder_import.hpp"

#include <array>
#include <cmath>
#include <optional>
#include <utility>

#include "core/error.hpp"
#include "workload/nccl_names.hpp"

namespace cctune::workload {
namespace {

using nlohmann::json;

// A call that took longer than a day is not a duration the recorder measured.
constexpr double kMaxDurationMs = 86400.0 * 1000.0;

// How NCCL's count follows from a tensor's element count for each PyTorch call name.
enum class CountFrom { Input, Output, InputPerPeer };

struct TorchCall {
  std::string_view name;
  CallKindOf kind;
  CountFrom count;
};

constexpr std::array<TorchCall, 16> kTorchCalls{{
    {"all_reduce", {CallKind::Collective, Collective::AllReduce}, CountFrom::Input},
    {"all_reduce_barrier", {CallKind::Collective, Collective::AllReduce}, CountFrom::Input},
    {"allreduce_coalesced", {CallKind::Collective, Collective::AllReduce}, CountFrom::Input},
    {"_all_gather_base", {CallKind::Collective, Collective::AllGather}, CountFrom::Input},
    {"all_gather", {CallKind::Collective, Collective::AllGather}, CountFrom::Input},
    {"all_gather_into_tensor_coalesced", {CallKind::Collective, Collective::AllGather}, CountFrom::Input},
    {"_reduce_scatter_base", {CallKind::Collective, Collective::ReduceScatter}, CountFrom::Output},
    {"reduce_scatter", {CallKind::Collective, Collective::ReduceScatter}, CountFrom::Output},
    {"reduce_scatter_tensor_coalesced", {CallKind::Collective, Collective::ReduceScatter}, CountFrom::Output},
    {"broadcast", {CallKind::Collective, Collective::Broadcast}, CountFrom::Input},
    {"reduce", {CallKind::Collective, Collective::Reduce}, CountFrom::Input},
    {"all_to_all", {CallKind::Collective, Collective::AllToAll}, CountFrom::InputPerPeer},
    {"gather", {CallKind::Collective, Collective::Gather}, CountFrom::Input},
    {"scatter", {CallKind::Collective, Collective::Scatter}, CountFrom::Output},
    {"send", {CallKind::Send, Collective::SendRecv}, CountFrom::Input},
    {"recv", {CallKind::Recv, Collective::SendRecv}, CountFrom::Output},
}};

const TorchCall* find_call(std::string_view profiling_name) {
  if (profiling_name.starts_with("nccl:")) profiling_name.remove_prefix(5);
  profiling_name = profiling_name.substr(0, profiling_name.find(' '));  // "send 0->1", "recv 0<-1": the peers follow
  for (const TorchCall& c : kTorchCalls)
    if (profiling_name == c.name) return &c;
  return nullptr;
}

[[noreturn]] void bad(const std::string& source, const std::string& where, const std::string& what) {
  throw UsageError(source + ": flight recorder dump: " + where + " " + what,
                   "pass the dump PyTorch wrote (JSON from _dump_nccl_trace_json, or the pickle TORCH_NCCL_DEBUG_INFO_TEMP_FILE names)");
}

// A process group's name: its number ("0", "3"), or the SHA-1 hex digest PyTorch names a group
// by for split_group and new_group(use_local_synchronization=True). It lands in workload.json
// and on the terminal, so nothing else is taken.
bool valid_pg_name(const std::string& pg) {
  if (pg.empty()) return false;
  if (pg.find_first_not_of("0123456789") == std::string::npos) return pg.size() <= 20;
  return pg.size() == 40 && pg.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// Process group id -> number of ranks, from pg_config's "ranks": "[0, 1]" strings.
int group_size(const json& dump, const std::string& pg, const std::string& source) {
  const json* cfg = dump.contains("pg_config") && dump["pg_config"].is_object() && dump["pg_config"].contains(pg)
                        ? &dump["pg_config"][pg] : nullptr;
  if (!cfg || !cfg->is_object() || !cfg->contains("ranks") || !(*cfg)["ranks"].is_string())
    bad(source, "pg_config." + pg + ".ranks", "is missing or not a string");
  const std::string& ranks = (*cfg)["ranks"].get_ref<const std::string&>();
  if (ranks.find_first_of("0123456789") == std::string::npos) return 0;
  std::size_t n = 1;
  for (char c : ranks) n += c == ',';
  if (n > static_cast<std::size_t>(max_workload_ranks)) bad(source, "pg_config." + pg + ".ranks", "lists more ranks than a job has");
  return static_cast<int>(n);
}

std::string pg_of(const json& e, const std::string& where, const std::string& source) {
  if (!e.contains("process_group") || !e["process_group"].is_array() || e["process_group"].empty() ||
      !e["process_group"][0].is_string())
    bad(source, where + ".process_group", "is not a [id, name] list");
  std::string pg = e["process_group"][0].get<std::string>();
  if (!valid_pg_name(pg)) bad(source, where + ".process_group", "has a name that is neither a number nor a 40-digit hex hash");
  return pg;
}

// The tensor's element count: 0 when a dimension is not a count (the tensor is skipped),
// nullopt when the product overflows (the dump is refused).
std::optional<std::uint64_t> numel_of(const json& sizes) {
  std::uint64_t n = 1;
  for (const json& d : sizes) {
    if (!d.is_number_unsigned() && !(d.is_number_integer() && d.get<long long>() >= 0)) return 0;
    if (__builtin_mul_overflow(n, d.get<std::uint64_t>(), &n)) return std::nullopt;
  }
  return n;
}

// What makes entries one group: PyTorch gives the calls of one coalesced group (its
// coalescing manager, batch_isend_irecv, the *_coalesced calls) one sequence id, counted
// apart for collectives and point-to-point calls; each lone call gets its own.
struct GroupKey {
  std::string pg;
  bool p2p = false;
  long long seq = -1;  // -1: not recorded, never grouped
  bool operator==(const GroupKey&) const = default;
};

GroupKey group_key_of(const json& e, const std::string& pg) {
  GroupKey k{pg, e.contains("is_p2p") && e["is_p2p"].is_boolean() && e["is_p2p"].get<bool>(), -1};
  const char* field = k.p2p ? "p2p_seq_id" : "collective_seq_id";
  if (e.contains(field) && e[field].is_number_integer()) k.seq = e[field].get<long long>();
  return k;
}

// The entries of one group as they are read; closed when an entry of another group comes.
class GroupReader {
 public:
  GroupReader(WorkloadBuilder& builder, int rank) : builder_(builder), rank_(rank) {}

  void member(const GroupKey& key, int nranks, const CallShape& shape) {
    if (!(key == key_) || key.seq < 0) {
      close();
      key_ = key;
      nranks_ = nranks;
    }
    if (members_.size() <= max_group_members) members_.push_back(shape);  // one past: counted as too big
  }

  void close() {
    builder_.add_group("pg" + key_.pg, nranks_, 0, rank_, members_);
    members_.clear();
  }

 private:
  WorkloadBuilder& builder_;
  int rank_;
  GroupKey key_;
  int nranks_ = 0;
  std::vector<CallShape> members_;
};

}  // namespace

// PyTorch leaves "entries" out of a dump that recorded nothing (its dump_json writes the list
// only when it has entries), so a dump is known by its "version" and "pg_config".
bool looks_like_flight_recorder(const json& doc) {
  if (!doc.is_object() || !doc.contains("pg_config")) return false;
  return doc.contains("entries") ? doc["entries"].is_array() : doc.contains("version");
}

FlightImportStats import_flight_recorder(const json& dump, int rank, WorkloadBuilder& builder, const std::string& source) {
  if (!looks_like_flight_recorder(dump)) bad(source, "top level", "has no \"pg_config\" with an \"entries\" list or a \"version\"");
  FlightImportStats stats;
  if (!dump.contains("entries")) return stats;
  GroupReader groups(builder, rank);
  const json& entries = dump["entries"];
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const json& e = entries[i];
    const std::string where = "entries[" + std::to_string(i) + "]";
    if (!e.is_object() || !e.contains("profiling_name") || !e["profiling_name"].is_string()) bad(source, where, "has no profiling_name");
    ++stats.entries;
    const TorchCall* call = find_call(e["profiling_name"].get<std::string>());
    if (!call) {
      ++stats.skipped;
      continue;
    }
    const std::string pg = pg_of(e, where, source);
    const int nranks = group_size(dump, pg, source);
    const bool from_output = call->count == CountFrom::Output;
    const json& sizes = e.value(from_output ? "output_sizes" : "input_sizes", json::array());
    const json& dtypes = e.value(from_output ? "output_dtypes" : "input_dtypes", json::array());
    if (!sizes.is_array() || !dtypes.is_array() || sizes.size() != dtypes.size() || nranks <= 0) bad(source, where, "has unreadable sizes");
    if (rank >= nranks) bad(source, where, "is from rank " + std::to_string(rank) + " of a " + std::to_string(nranks) + "-rank group (pass --rank R)");
    std::optional<double> duration_us;
    if (e.contains("duration_ms") && e["duration_ms"].is_number()) {
      const double ms = e["duration_ms"].get<double>();
      if (!std::isfinite(ms) || ms < 0 || ms > kMaxDurationMs) bad(source, where + ".duration_ms", "is not a duration (finite, >= 0, under a day)");
      duration_us = ms * 1000.0;
    }
    // A coalesced call is one NCCL call per tensor inside a group.
    for (std::size_t t = 0; t < sizes.size(); ++t) {
      // Plain values, not optionals: GCC's -Wmaybe-uninitialized misreads an optional's payload here.
      DType type = DType::Uint8;
      bool typed = false;
      if (dtypes[t].is_string())
        if (const auto known = dtype_from_torch(dtypes[t].get<std::string>())) type = *known, typed = true;
      const auto numel = sizes[t].is_array() ? numel_of(sizes[t]) : std::optional<std::uint64_t>(0);
      const bool wrapped = !numel;
      std::uint64_t count = numel.value_or(0);
      if (call->count == CountFrom::InputPerPeer) count /= static_cast<std::uint64_t>(nranks);
      if (typed && (wrapped || (count > 0 && !nbytes_of(call->kind.kind, call->kind.collective, type, count, nranks))))
        bad(source, where + (from_output ? ".output_sizes" : ".input_sizes"), "gives more than " + std::to_string(max_call_bytes >> 30) + " GiB in one call");
      if (!typed || count == 0) {
        ++stats.skipped;
        continue;
      }
      CallShape shape = make_shape(call->kind, type, std::nullopt, 0, count, nranks);
      shape.root.reset();  // not recorded either
      CallStats& s = builder.add_call("pg" + pg, nranks, 0, rank, shape);
      if (duration_us && t == 0) s.durations.add(*duration_us);
      groups.member(group_key_of(e, pg), nranks, shape);
    }
  }
  groups.close();
  return stats;
}

}  // namespace cctune::workload
