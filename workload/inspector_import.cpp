#include "workload/inspector_import.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/error.hpp"
#include "core/json_depth.hpp"
#include "workload/nccl_names.hpp"

namespace cctune::workload {
namespace {

using nlohmann::json;

// Bounds on numbers from the file: past these a line is not a real capture. Sizes stay far
// from overflow when AllGather's and ReduceScatter's nBytes multiply them by nranks.
constexpr std::uint64_t kMaxRanks = 1u << 24;
constexpr std::uint64_t kMaxMsgBytes = std::uint64_t{1} << 38;  // 256 GiB per rank
constexpr std::uint64_t kMaxSeq = std::uint64_t{1} << 48;
constexpr std::uint64_t kMaxExecUs = std::uint64_t{1} << 40;      // about 12 days

std::optional<std::uint64_t> uint_field(const json& obj, const char* key, std::uint64_t max) {
  const auto it = obj.find(key);
  if (it == obj.end()) return std::nullopt;
  std::uint64_t v = 0;
  if (it->is_number_unsigned()) v = it->get<std::uint64_t>();
  else if (it->is_number_integer() && it->get<std::int64_t>() >= 0) v = static_cast<std::uint64_t>(it->get<std::int64_t>());
  else return std::nullopt;
  if (v > max) return std::nullopt;
  return v;
}

// coll_exec_time_us: an integer in older Inspectors, a float (fractions of a microsecond) in
// 2.30; finite, >= 0 and under kMaxExecUs, else the record keeps no duration.
std::optional<double> exec_time_us(const json& perf, const std::string& prefix) {
  const auto it = perf.find(prefix + "exec_time_us");
  if (it == perf.end() || !it->is_number()) return std::nullopt;
  const double us = it->get<double>();
  if (!std::isfinite(us) || us < 0 || us > static_cast<double>(kMaxExecUs)) return std::nullopt;
  return us;
}

// Inspector writes NCCL's commHash as hex; it lands in workload.json and on the terminal.
bool is_hash(const json& v) {
  if (!v.is_string()) return false;
  const std::string& s = v.get_ref<const std::string&>();
  if (s.size() < 3 || s.size() > 34 || !s.starts_with("0x")) return false;
  return std::all_of(s.begin() + 2, s.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
}

// coll_timing_source: the kernel's GPU timer, else host clocks around the kernel or the call.
std::string clock_of(const json& perf, const std::string& prefix) {
  const auto it = perf.find(prefix + "timing_source");
  if (it == perf.end() || !it->is_string()) return "";
  const std::string& s = it->get_ref<const std::string&>();
  if (s == "kernel_gpu") return "gpu";
  if (s == "kernel_cpu" || s == "collective_cpu") return "host";
  return "";
}

std::optional<json> parse_line(std::string_view text) {
  if (json_nests_deeper_than(text)) return std::nullopt;
  json j = json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  return j;
}

// A collective's record ("coll_perf") or, from Inspector 2.30, a send's or receive's ("p2p_perf").
bool is_record(const json& j) {
  if (!j.contains("header") || !j["header"].is_object()) return false;
  return (j.contains("coll_perf") && j["coll_perf"].is_object()) || (j.contains("p2p_perf") && j["p2p_perf"].is_object());
}

// The call a record names: NCCL's function names, and Inspector 2.30's "All2All".
std::optional<CallKindOf> func_of(const json& perf, const char* key) {
  const auto it = perf.find(key);
  if (it == perf.end() || !it->is_string()) return std::nullopt;
  const std::string& name = it->get_ref<const std::string&>();
  return nccl_func_kind(name == "All2All" ? "AlltoAll" : name);
}

}  // namespace

std::uint64_t InspectorReader::PerRank::lost() const {
  std::uint64_t n = 0;
  for (const auto& [c, seen] : seq) n += seen.second + 1 > seen.first ? seen.second + 1 - seen.first : 0;
  return n;
}

bool InspectorReader::line(std::string_view text) {
  const std::optional<json> parsed = parse_line(text);
  if (!parsed || !is_record(*parsed)) return false;
  const json& header = (*parsed)["header"];
  const bool p2p = !parsed->contains("coll_perf");
  const json& perf = (*parsed)[p2p ? "p2p_perf" : "coll_perf"];
  const std::string prefix = p2p ? "p2p_" : "coll_";
  const auto nranks = uint_field(header, "n_ranks", kMaxRanks);
  const auto rank = uint_field(header, "rank", kMaxRanks);
  const auto nnodes = uint_field(header, "nnodes", kMaxRanks);
  if (!header.contains("id") || !is_hash(header["id"]) || !nranks || *nranks == 0 || !rank || *rank >= *nranks ||
      (nnodes && *nnodes > *nranks))
    return false;
  const auto func = func_of(perf, p2p ? "p2p" : "coll");
  const auto sn = uint_field(perf, (prefix + "sn").c_str(), kMaxSeq);
  const auto bytes = uint_field(perf, (prefix + "msg_size_bytes").c_str(), kMaxMsgBytes);
  // A collective's record names a collective, a point-to-point record a send or a receive.
  if (!func || (func->kind == CallKind::Collective) == p2p || !sn || !bytes || *bytes == 0) return false;
  // Per-rank bytes times ranks for the collectives that split their buffer: past max_call_bytes
  // it is no real call.
  if (!nbytes_of(func->kind, func->collective, DType::Uint8, *bytes, static_cast<int>(*nranks))) return false;

  PerRank& pr = ranks_[{header["id"].get<std::string>(), static_cast<int>(*rank)}];
  if (pr.records == 0) {
    pr.nranks = static_cast<int>(*nranks);
    pr.nnodes = nnodes ? static_cast<int>(*nnodes) : 0;
  } else if (pr.nranks != static_cast<int>(*nranks)) {
    return false;
  }
  CallShape shape = make_shape(*func, DType::Uint8, std::nullopt, 0, *bytes, pr.nranks);
  shape.root.reset();  // not recorded
  auto [it, fresh] = pr.calls.try_emplace(shape, CallStats{shape, 0, {}, {}, pr.records});
  if (fresh && ++shapes_ > max_workload_shapes)
    throw UsageError("inspector: the capture holds more than " + std::to_string(max_workload_shapes) + " distinct calls",
                     "capture fewer steps, or split the capture by communicator");
  CallStats& s = it->second;
  ++s.calls;
  if (const auto us = exec_time_us(perf, prefix)) {
    const std::string clock = clock_of(perf, prefix);
    Durations one;
    one.add(*us);
    one.clock = clock;
    s.durations.merge(one);
  }
  // How p2p_sn numbers sends and receives is not documented, so lost calls are counted for
  // collectives only; sends and receives add what was seen.
  if (!p2p) {
    auto& [seen, highest] = pr.seq[func->collective];
    ++seen;
    highest = std::max(highest, *sn);
  }
  ++pr.records;
  return true;
}

namespace {

// Brace depth outside strings, fed one character at a time: where a pretty-printed record ends.
struct Depth {
  int depth = 0;
  bool in_string = false, escaped = false;
  void feed(char c) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
};

bool is_lone_brace(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r");
  return first != std::string_view::npos && text[first] == '{' && text.find_first_not_of(" \t\r", first + 1) == std::string_view::npos;
}

}  // namespace

InspectorImportStats InspectorReader::read(std::istream& in, const std::string& source) {
  InspectorImportStats stats;
  std::string text;
  long number = 1, first_line = 1;
  Depth depth;
  bool pretty = false;  // the record began with a lone "{": read to its closing brace
  auto take = [&] {
    if (text.find_first_not_of(" \t\r") == std::string::npos) return;
    ++stats.lines;
    if (line(text)) ++stats.records;
    else ++stats.skipped;
  };
  // Records are read with a bound: a longer one is refused before it is held whole.
  std::streambuf* buf = in.rdbuf();
  for (int c = buf->sbumpc(); c != std::char_traits<char>::eof(); c = buf->sbumpc()) {
    if (c != '\n') {
      if (text.size() == max_inspector_line)
        throw UsageError(source + ":" + std::to_string(first_line) + " is longer than " + std::to_string(max_inspector_line) + " bytes",
                         "pass NCCL Inspector's JSON output (one record per line, or pretty-printed records), unchanged");
      text.push_back(static_cast<char>(c));
      depth.feed(static_cast<char>(c));
      continue;
    }
    ++number;
    if (depth.depth > 0 && (pretty || is_lone_brace(text))) {
      pretty = true;
      text.push_back(' ');
      continue;
    }
    take();
    text.clear();
    depth = Depth{};
    pretty = false;
    first_line = number;
  }
  take();
  return stats;
}

void InspectorReader::add_to(WorkloadBuilder& builder) const {
  // Per communicator, the rank that lost the fewest calls (map order makes ties the lowest).
  std::map<std::string, std::pair<int, const PerRank*>> chosen;
  for (const auto& [key, pr] : ranks_) {
    auto [it, fresh] = chosen.try_emplace(key.first, key.second, &pr);
    if (!fresh && pr.lost() < it->second.second->lost()) it->second = {key.second, &pr};
  }
  for (const auto& [id, pick] : chosen) {
    const auto& [rank, pr] = pick;
    for (const auto& [shape, stats] : pr->calls) {
      CallStats& s = builder.add_call(id, pr->nranks, pr->nnodes, rank, shape);
      s.calls = stats.calls;
      s.durations = stats.durations;
      s.first_call = stats.first_call;
    }
    builder.add_not_recorded(id, pr->nranks, pr->nnodes, rank, pr->lost());
  }
}

bool looks_like_inspector(std::string_view head) {
  const auto first = head.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || head[first] != '{') return false;
  auto end = head.find('\n', first);
  if (end != std::string_view::npos && is_lone_brace(head.substr(first, end - first))) {
    // Pretty-printed: the first record ends where its braces close.
    Depth depth;
    end = std::string_view::npos;
    for (std::size_t k = first; k < head.size(); ++k) {
      depth.feed(head[k]);
      if (depth.depth == 0) {
        end = k + 1;
        break;
      }
    }
    const auto key = head.find_first_not_of(" \t\r\n", first + 1);
    if (end == std::string_view::npos) return key != std::string_view::npos && head.substr(key).starts_with(R"("header")");
  }
  // A file cut inside its first record is still Inspector's: every record starts with its header.
  if (end == std::string_view::npos) return head.substr(first).starts_with(R"({"header":{)");
  const std::optional<json> parsed = parse_line(head.substr(first, end - first));
  return parsed && is_record(*parsed);
}

std::optional<std::string> inspector_form_not_read(std::string_view head) {
  bool marker = false, headerless = false;
  std::string version;
  // A version read from the file goes into a message: kept to what version strings hold.
  const auto take_version = [&](const json& obj) {
    const auto it = obj.find("inspector_output_format_version");
    if (it == obj.end() || !it->is_string() || !version.empty()) return;
    const std::string& v = it->get_ref<const std::string&>();
    if (!v.empty() && v.size() <= 16 &&
        std::all_of(v.begin(), v.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '.'; }))
      version = v;
  };
  std::size_t at = 0;
  for (int lines = 0; lines < 8 && at < head.size(); ++lines) {
    const std::size_t end = std::min(head.find('\n', at), head.size());
    const std::optional<json> obj = parse_line(head.substr(at, end - at));
    at = end + 1;
    if (!obj) continue;
    if (obj->contains("dump_stats")) {
      marker = true;
      if ((*obj)["dump_stats"].is_object()) take_version((*obj)["dump_stats"]);
    }
    const bool perf =
        (obj->contains("coll_perf") && (*obj)["coll_perf"].is_object()) || (obj->contains("p2p_perf") && (*obj)["p2p_perf"].is_object());
    if (perf && !obj->contains("header")) headerless = true;
    if (obj->contains("metadata") && (*obj)["metadata"].is_object()) take_version((*obj)["metadata"]);
    take_version(*obj);
  }
  if (!marker && !headerless) return std::nullopt;
  std::string what = "format " + (version.empty() ? std::string("unknown") : version) + ":";
  if (marker) what += " a dump_stats marker";
  if (headerless) what += std::string(marker ? "," : "") + " records without the header that names their communicator, rank and size";
  return what;
}

}  // namespace cctune::workload
