#include "workload/nccl_log_messages.hpp"

#include "workload/nccl_log_line.hpp"

namespace cctune::workload::nccl_log {
namespace {

// A count whose nBytes (x type size x nranks) would not fit 63 bits is not a call NCCL took.
constexpr std::uint64_t kMaxBytes = std::uint64_t{1} << 62;

std::string_view without_colon(std::string_view w) {
  if (w.size() < 2 || w.back() != ':') return {};
  w.remove_suffix(1);
  return w;
}

// NCCL_ALGO_* and NCCL_PROTO_* as 2.20-2.23 print them (numbers), or 2.24+ (names).
std::optional<Algorithm> algorithm_of(std::string_view w) {
  if (const auto n = to_int(w)) {
    if (*n < 0 || *n >= kAlgorithmCount) return std::nullopt;
    return static_cast<Algorithm>(*n);  // cctune's enumerators are NCCL's indices
  }
  return parse_algorithm(w);
}
std::optional<Protocol> protocol_of(std::string_view w) {
  if (const auto n = to_int(w)) {
    if (*n < 0 || *n >= kProtocolCount) return std::nullopt;
    return static_cast<Protocol>(*n);
  }
  return parse_protocol(w);
}

// "channel{Lo..Hi}={0..1}" -> 2.
int channels_of(std::string_view w) {
  constexpr std::string_view kHead = "channel{Lo..Hi}={";
  if (!w.starts_with(kHead) || !w.ends_with("}")) return 0;
  const std::string_view range = slice(w, kHead.size(), w.size() - kHead.size() - 1);
  const std::size_t dots = range.find("..");
  if (dots == std::string_view::npos) return 0;
  const auto lo = to_int(slice(range, 0, dots)), hi = to_int(slice(range, dots + 2));
  if (!lo || !hi || *lo < 0 || *hi < *lo || *hi >= 1024) return 0;
  return *hi - *lo + 1;
}

}  // namespace

std::optional<CallMessage> parse_call(std::string_view message) {
  const auto w = split_words(message);
  if (!w || w->at(1) != "opCount") return std::nullopt;
  CallMessage m;
  m.func = without_colon(w->at(0));
  const auto kind = nccl_func_kind(m.func);
  const auto op_count = to_u64(w->at(2), 16);
  const auto count = to_u64(w->after("count"));
  const auto dtype_code = to_int(w->after("datatype"));
  const auto dtype = dtype_code ? dtype_from_nccl(*dtype_code) : std::nullopt;
  const auto op = to_int(w->after("op"));
  const auto root = to_int(w->after("root"));
  m.comm = w->after("comm");
  std::string_view nranks_word;
  for (std::size_t i = 0; i < w->count; ++i)
    if (w->word[i].starts_with("[nranks=") && w->word[i].ends_with("]")) nranks_word = slice(w->word[i], 8, w->word[i].size() - 9);
  const auto nranks = to_int(nranks_word);
  if (!kind || !op_count || !count || !dtype || !op || !root || !nranks || *nranks <= 0 || !is_hex_id(m.comm)) return std::nullopt;
  if (*root < 0 || *root >= *nranks) return std::nullopt;
  // value_or: the checks above hold, and GCC cannot see that through std::optional.
  m.dtype = dtype.value_or(DType::Float32);
  m.nranks = nranks.value_or(1);
  m.count = count.value_or(0);
  if (m.count > kMaxBytes / dtype_size(m.dtype) / static_cast<std::uint64_t>(m.nranks)) return std::nullopt;
  m.kind = kind.value_or(CallKindOf{});
  m.op_count = op_count.value_or(0);
  m.op = op_from_nccl(op.value_or(0));
  m.root = root.value_or(0);
  return m;
}

std::string call_problem(std::string_view message) {
  const auto w = split_words(message);
  if (!w) return "it has more than " + std::to_string(Words::kMaxWords) + " words";
  const auto quoted = [](std::string_view word) { return "'" + std::string(slice(word, 0, 24)) + "'"; };
  // Each field NCCL prints, in its order: a missing one means the line stops before it.
  const auto field = [&](std::string_view key, const char* what) -> std::string {
    for (std::size_t i = 0; i < w->count; ++i)
      if (w->word[i] == key) return i + 1 < w->count ? "" : "it stops after '" + std::string(key) + "' (cut or wrapped)";
    return std::string("it has no ") + what + " (cut or wrapped)";
  };
  if (!nccl_func_kind(without_colon(w->at(0)))) return quoted(w->at(0)) + " is no NCCL function";
  if (!to_u64(w->at(2), 16)) return "its opCount " + quoted(w->at(2)) + " is no hex number";
  for (const auto& [key, what] :
       {std::pair{"count", "count"}, {"datatype", "datatype"}, {"op", "op"}, {"root", "root"}, {"comm", "comm pointer"}})
    if (std::string gap = field(key, what); !gap.empty()) return gap;
  if (!to_u64(w->after("count"))) return "its count " + quoted(w->after("count")) + " is no number";
  const auto dtype_code = to_int(w->after("datatype"));
  if (!dtype_code || !dtype_from_nccl(*dtype_code)) return "its datatype " + quoted(w->after("datatype")) + " is none NCCL has";
  if (!to_int(w->after("op")) || !to_int(w->after("root"))) return "its op or root is no number";
  if (!is_hex_id(w->after("comm"))) return "its comm pointer " + quoted(w->after("comm")) + " is not NCCL's hex pointer (elided or cut)";
  if (parse_call(message)) return "";
  for (std::size_t i = 0; i < w->count; ++i)
    if (w->word[i].starts_with("[nranks=") && w->word[i].ends_with("]")) return "its root, count or [nranks=N] is out of range";
  return "it has no [nranks=N] after its comm pointer (cut or wrapped)";
}

std::optional<TuningMessage> parse_tuning(std::string_view message) {
  const auto w = split_words(message);
  if (!w) return std::nullopt;
  // The bytes are the word before "Bytes ->"; what comes before them names the function.
  std::size_t b = 0;
  while (b + 2 < w->count && !(w->word[b + 1] == "Bytes" && w->word[b + 2] == "->")) ++b;
  if (b + 2 >= w->count) return std::nullopt;
  TuningMessage t;
  const auto bytes = to_u64(w->at(b));
  if (!bytes) return std::nullopt;
  t.bytes = *bytes;
  if (b == 1) {
    t.func = without_colon(w->at(0));
    if (t.func.empty()) return std::nullopt;  // "AllReduce 4096 Bytes": no form NCCL prints
  } else if (b > 1) {
    // "<Func> [Symmetric]:", "<Func> [Copy Engine]:": a kernel without NCCL's algorithms.
    if (!w->at(b - 1).ends_with("]:") || !w->at(1).starts_with("[")) return std::nullopt;
    t.func = w->at(0);
    return t;
  }
  if (!nccl_func_kind(t.func) && b == 1) return std::nullopt;
  if (w->at(b + 3) != "Algo" || w->at(b + 5) != "proto") return std::nullopt;
  t.algo = algorithm_of(w->at(b + 4));
  t.proto = protocol_of(w->at(b + 6));
  if (!t.algo || !t.proto) return std::nullopt;
  t.has_choice = true;
  t.bytes_are_nbytes = to_int(w->at(b + 4)).has_value();
  if (t.bytes_are_nbytes) {
    if (w->at(b + 7) != "time") return std::nullopt;
  } else {
    t.channels = channels_of(w->at(b + 7));
  }
  return t;
}

std::optional<InitMessage> parse_init_complete(std::string_view message) {
  const auto w = split_words(message);
  if (!w || w->count < 2 || w->at(w->count - 2) != "Init" || w->at(w->count - 1) != "COMPLETE") return std::nullopt;
  InitMessage m;
  m.comm = w->after("comm");
  const auto rank = to_int(w->after("rank"));
  const auto nranks = to_int(w->after("nranks"));
  if (!is_hex_id(m.comm) || !rank || !nranks || *nranks <= 0 || *rank < 0 || *rank >= *nranks) return std::nullopt;
  m.rank = *rank;
  m.nranks = *nranks;
  const std::string_view id = w->after("commId");
  if (is_hex_id(id)) m.comm_id = id;
  return m;
}

std::optional<NodesMessage> parse_nodes(std::string_view message) {
  const auto w = split_words(message);
  if (!w || w->at(0) != "comm" || w->at(6) != "nNodes") return std::nullopt;
  NodesMessage m;
  m.comm = w->at(1);
  const auto rank = to_int(w->after("rank")), nranks = to_int(w->after("nRanks")), nnodes = to_int(w->after("nNodes"));
  if (!is_hex_id(m.comm) || !rank || !nranks || !nnodes || *nranks <= 0 || *nnodes <= 0 || *nnodes > *nranks) return std::nullopt;
  m.rank = *rank;
  m.nranks = *nranks;
  m.nnodes = *nnodes;
  return m;
}

}  // namespace cctune::workload::nccl_log
