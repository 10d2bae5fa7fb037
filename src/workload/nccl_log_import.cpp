#include "workload/nccl_log_import.hpp"

#include <cctype>
#include <charconv>
#include <deque>
#include <map>
#include <optional>
#include <string_view>

#include "workload/nccl_names.hpp"

namespace cctune::workload {
namespace {

constexpr std::size_t kMaxLine = 64 * 1024;

struct CommInfo {
  std::string id;
  int rank = -1;
  int nranks = 0;
  int nnodes = 0;
};

// The value after `key ` in `text` (up to the next space), or empty.
std::string_view field(std::string_view text, std::string_view key) {
  std::size_t at = 0;
  while ((at = text.find(key, at)) != std::string_view::npos) {
    const bool word_start = at == 0 || text[at - 1] == ' ';
    const std::size_t value = at + key.size();
    if (word_start && value < text.size() && text[value] == ' ') {
      const std::size_t end = text.find(' ', value + 1);
      return text.substr(value + 1, end == std::string_view::npos ? std::string_view::npos : end - value - 1);
    }
    at = value;
  }
  return {};
}

// Ids land in workload.json and on the terminal: NCCL's are hex; anything else is replaced.
bool is_hex_id(std::string_view s) {
  if (!s.starts_with("0x") || s.size() < 3 || s.size() > 34) return false;
  return s.substr(2).find_first_not_of("0123456789abcdefABCDEF") == std::string_view::npos;
}

std::string printable(std::string_view s) {
  std::string out(s.substr(0, 128));
  for (char& c : out)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_' && c != ':' && c != 'x') c = '?';
  return out;
}

template <typename T>
std::optional<T> number(std::string_view s, int base = 10) {
  if (base == 16 && s.starts_with("0x")) s.remove_prefix(2);
  T v{};
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

// The calls of one communicator's current group, as read so far.
struct OpenGroup {
  std::string op_count, comm_id;
  int nranks = 0, nnodes = 0, rank = -1;
  std::vector<CallShape> members;
};

class LogReader {
 public:
  explicit LogReader(WorkloadBuilder& builder) : builder_(builder) {}

  void line(std::string_view text) {
    const std::size_t info = text.find(" NCCL INFO ");
    if (info == std::string_view::npos) return;
    const std::string_view prefix = text.substr(0, info);        // host:pid:tid [dev]
    const std::string_view body = text.substr(info + 11);
    const std::string process(prefix.substr(0, prefix.rfind(':')));  // host:pid
    const std::string thread(prefix.substr(0, prefix.find(' ')));    // host:pid:tid
    if (body.find(" Init COMPLETE") != std::string_view::npos) return init_complete(process, body);
    if (body.starts_with("comm 0x") && body.find(" nNodes ") != std::string_view::npos) return comm_shape(process, body);
    if (body.find(": opCount ") != std::string_view::npos) return call(process, thread, body);
    if (body.find(" Bytes -> Algo ") != std::string_view::npos) return tuning(thread, body);
  }

  LogImportStats stats;

 private:
  CommInfo& comm(const std::string& process, std::string_view ptr) { return comms_[process + "/" + std::string(ptr)]; }

  void init_complete(const std::string& process, std::string_view body) {
    const std::string_view ptr = field(body, "comm"), id = field(body, "commId");
    if (ptr.empty() || !is_hex_id(id)) return;
    CommInfo& c = comm(process, ptr);
    c.id = std::string(id);
    if (auto r = number<int>(field(body, "rank"))) c.rank = *r;
    if (auto n = number<int>(field(body, "nranks"))) c.nranks = *n;
  }

  void comm_shape(const std::string& process, std::string_view body) {
    CommInfo& c = comm(process, field(body, "comm"));
    if (auto r = number<int>(field(body, "rank"))) c.rank = *r;
    if (auto n = number<int>(field(body, "nRanks"))) c.nranks = *n;
    if (auto k = number<int>(field(body, "nNodes"))) c.nnodes = *k;
  }

  void call(const std::string& process, const std::string& thread, std::string_view body) {
    const auto kind = nccl_func_kind(body.substr(0, body.find(':')));
    const auto count = number<std::uint64_t>(field(body, "count"));
    const auto dtype = number<int>(field(body, "datatype"));
    const auto op = number<int>(field(body, "op"));
    const auto root = number<int>(field(body, "root"));
    std::string_view nranks_text = body.substr(body.find("[nranks=") == std::string_view::npos ? body.size() : body.find("[nranks=") + 8);
    nranks_text = nranks_text.substr(0, nranks_text.find(']'));
    const auto nranks = number<int>(nranks_text);
    const auto type = dtype ? dtype_from_nccl(*dtype) : std::nullopt;
    const std::string_view ptr = field(body, "comm");
    if (!kind || !count || !type || !op || !root || !nranks || *nranks <= 0 || ptr.empty()) {
      ++stats.skipped_lines;
      return;
    }
    CommInfo& c = comm(process, ptr);
    if (c.id.empty()) {
      ++stats.unmapped_calls;
      c.id = "unmapped:" + printable(process) + "/" + printable(ptr);
      c.nranks = *nranks;
    }
    // value_or: the checks above hold, and GCC cannot see that through std::optional.
    const DType t = type.value_or(DType::Float32);
    const CallShape shape = make_shape(*kind, t, op_from_nccl(*op), *root, *count, *nranks);
    auto& pending = pending_[thread];
    if (pending.size() >= kMaxPending) pending.pop_front();
    pending.push_back({std::string(body.substr(0, body.find(':'))), *count * dtype_size(t),
                       &builder_.add_call(c.id, *nranks, c.nnodes, c.rank, shape)});
    ++stats.call_lines;
    group_member(process + "/" + std::string(ptr), c, field(body, "opCount"), shape);
  }

  // NCCL prints one opCount for all the calls of one ncclGroupStart/End on a communicator, and
  // a new one for each group (a lone call is a group of one): consecutive lines of a
  // communicator with the same opCount are one group.
  void group_member(const std::string& comm_key, const CommInfo& c, std::string_view op_count, const CallShape& shape) {
    OpenGroup& g = open_groups_[comm_key];
    if (g.op_count != op_count || g.comm_id != c.id) {
      close(g);
      g = OpenGroup{std::string(op_count), c.id, c.nranks, c.nnodes, c.rank, {}};
    }
    // One past the bound is enough for add_group to count the group as not recorded.
    if (g.members.size() <= max_group_members) g.members.push_back(shape);
  }

  void close(OpenGroup& g) {
    builder_.add_group(g.comm_id, g.nranks, g.nnodes, g.rank, g.members);
    g.members.clear();
  }

 public:
  // The groups still open when the log ends.
  void finish() {
    for (auto& [key, g] : open_groups_) close(g);
  }

 private:

  // NCCL prints a call's TUNING line when its group is launched, after the call's own line;
  // within a group the calls come first, then their TUNING lines in order. Calls that never get
  // one (point-to-point) are dropped as older lines are matched.
  void tuning(const std::string& thread, std::string_view body) {
    auto it = pending_.find(thread);
    if (it == pending_.end()) return;
    const std::string_view func = body.substr(0, body.find(':'));
    const auto bytes = number<std::uint64_t>(body.substr(func.size() + 2, body.find(" Bytes") - func.size() - 2));
    auto& pending = it->second;
    while (!pending.empty() && !(pending.front().func == func && bytes && pending.front().type_bytes == *bytes))
      pending.pop_front();
    if (pending.empty()) return;
    CallStats& target = *pending.front().stats;
    pending.pop_front();
    add_applied(target, applied_of(body));
    ++stats.tuning_lines;
  }

  static Applied applied_of(std::string_view body) {
    Applied a;
    a.algo = parse_algorithm(field(body, "Algo"));
    a.proto = parse_protocol(field(body, "proto"));
    const std::size_t lo = body.find("={");
    const std::size_t dots = lo == std::string_view::npos ? lo : body.find("..", lo);
    if (dots != std::string_view::npos) {
      const auto first = number<int>(body.substr(lo + 2, dots - lo - 2));
      const auto last = number<int>(body.substr(dots + 2, body.find('}', dots) - dots - 2));
      if (first && last && *last >= *first) a.channels = *last - *first + 1;
    }
    a.calls = 1;
    return a;
  }

  static void add_applied(CallStats& target, const Applied& a) {
    for (Applied& have : target.applied)
      if (have.algo == a.algo && have.proto == a.proto && have.channels == a.channels) {
        ++have.calls;
        return;
      }
    target.applied.push_back(a);
  }

  struct Pending {
    std::string func;         // NCCL's name, as the TUNING line spells it
    std::uint64_t type_bytes; // count × type size: what the TUNING line prints
    CallStats* stats;         // stable: the builder keeps calls in node-based maps
  };
  static constexpr std::size_t kMaxPending = 4096;

  WorkloadBuilder& builder_;
  std::map<std::string, CommInfo> comms_;          // "host:pid/0xptr"
  std::map<std::string, std::deque<Pending>> pending_;  // per thread: calls awaiting their TUNING line
  std::map<std::string, OpenGroup> open_groups_;        // per "host:pid/0xptr": the group being read
};

}  // namespace

bool looks_like_nccl_log(const std::string& head) { return head.find(" NCCL INFO ") != std::string::npos; }

LogImportStats import_nccl_log(std::istream& in, WorkloadBuilder& builder) {
  LogReader reader(builder);
  std::string line;
  bool too_long = false;
  char c = 0;
  // Lines are read with a bound: a longer one (not NCCL's) is skipped without being held.
  while (in.get(c)) {
    if (c != '\n') {
      if (line.size() < kMaxLine) line.push_back(c);
      else too_long = true;
      continue;
    }
    if (!too_long) reader.line(line);
    line.clear();
    too_long = false;
  }
  if (!too_long && !line.empty()) reader.line(line);
  reader.finish();
  return reader.stats;
}

}  // namespace cctune::workload
