#include "workload/nccl_log_reader.hpp"

#include <algorithm>
#include <cctype>

#include "core/error.hpp"
#include "workload/nccl_log_comm_match.hpp"
#include "workload/nccl_log_line.hpp"

namespace cctune::workload::nccl_log {
namespace {

// Processes' and pointers' text goes into ids of unmapped communicators: kept to NCCL's own
// characters, anything else replaced.
std::string printable(std::string_view s) {
  std::string out(slice(s, 0, 128));
  for (char& c : out)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_' && c != ':') c = '?';
  return out;
}

enum class Form { Init, Nodes, Call, Tuning, Other };

Form form_of(std::string_view message) {
  if (message.find(" Init COMPLETE") != std::string_view::npos) return Form::Init;
  if (message.starts_with("comm ") && message.find(" nNodes ") != std::string_view::npos) return Form::Nodes;
  if (message.find(": opCount ") != std::string_view::npos) return Form::Call;
  if (message.find(" Bytes -> ") != std::string_view::npos) return Form::Tuning;
  return Form::Other;
}

void mix(std::uint64_t& h, std::uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
}

void add_applied(CallStats& target, const TuningMessage& t) {
  const Applied a{t.algo, t.proto, t.channels, 1};
  for (Applied& have : target.applied)
    if (have.algo == a.algo && have.proto == a.proto && have.channels == a.channels) {
      ++have.calls;
      return;
    }
  target.applied.push_back(a);
}

}  // namespace

void LogReader::skip(long line_number, const std::string& reason, bool call) {
  if (stats.skipped_lines++ == 0) stats.first_skipped_line = line_number, stats.first_skip_reason = reason;
  if (call && stats.skipped_call_lines++ == 0) stats.first_skipped_call_line = line_number, stats.first_skipped_call_reason = reason;
}

void LogReader::check_budget() const {
  if (processes_.size() + comms_.size() < max_workload_shapes) return;
  throw UsageError("the log names more than " + std::to_string(max_workload_shapes) + " processes and communicators",
                   "capture fewer processes per file, or split the log by process (NCCL_DEBUG_FILE=...%h.%p)");
}

LogReader::Comm& LogReader::comm(std::string_view process, std::string_view ptr) {
  auto p = processes_.find(process);
  if (p == processes_.end()) {
    check_budget();
    p = processes_.emplace(std::string(process), static_cast<std::uint32_t>(processes_.size())).first;
  }
  const std::uint64_t address = to_u64(ptr, 16).value_or(0);  // parse_* checked it is hex
  auto it = comms_.find({p->second, address});
  if (it == comms_.end()) {
    check_budget();
    it = comms_.emplace(std::pair{p->second, address}, Comm{}).first;
    it->second.first_seen = static_cast<std::uint32_t>(comms_.size());
    it->second.local_id = printable(process) + "/" + printable(ptr);
  }
  return it->second;
}

LogReader::Thread& LogReader::thread_state(std::string_view thread, long line_number) {
  auto it = threads_.find(thread);
  if (it == threads_.end()) {
    // Drop the longer-idle half: a thread silent that long has had its TUNING lines.
    if (threads_.size() >= kMaxThreads) {
      std::vector<long> last;
      last.reserve(threads_.size());
      for (const auto& [key, t] : threads_) last.push_back(t.last_line);
      std::nth_element(last.begin(), last.begin() + static_cast<long>(last.size() / 2), last.end());
      const long cutoff = last[last.size() / 2];
      std::erase_if(threads_, [&](const auto& kv) { return kv.second.last_line <= cutoff; });
    }
    it = threads_.emplace(std::string(thread), Thread{}).first;
  }
  it->second.last_line = line_number;
  return it->second;
}

void LogReader::line(std::string_view text, long line_number) {
  const auto parts = split_line(text, true);
  // A line without "NCCL INFO" is NCCL's only where the caller said the file is its log.
  if (!parts || (parts->bare && !options_.keyless)) return;
  const Form form = form_of(parts->message);
  if (form == Form::Other) return;
  const bool keyed = !parts->thread.empty();
  if (!keyed && !options_.keyless)
    return skip(line_number, "it has no host:pid:tid key before NCCL INFO (pasted without it: --format nccl-log reads such lines)",
                form == Form::Call);
  const std::string_view process = keyed ? parts->process : std::string_view(options_.keyless_process);
  const std::string_view thread = keyed ? parts->thread : std::string_view(options_.keyless_process);
  switch (form) {
    case Form::Init:
      if (const auto m = parse_init_complete(parts->message)) {
        Comm& c = comm(process, m->comm);
        if (!c.run.empty() || c.op_count) {  // NCCL reused a destroyed communicator's address
          close_run(c, c.op_count_moved || c.launched);
          const std::uint32_t reuse = ++generation_;
          const std::uint32_t first_seen = c.first_seen;
          c = Comm{};
          c.local_id = printable(process) + "/" + printable(m->comm) + "#" + std::to_string(reuse);
          c.first_seen = first_seen;
        }
        c.id = std::string(m->comm_id);
        c.rank = m->rank;
        c.nranks = m->nranks;
        return;
      }
      return skip(line_number, "its Init COMPLETE line lacks a hex comm pointer, a rank or nranks");
    case Form::Nodes:
      if (const auto m = parse_nodes(parts->message)) {
        Comm& c = comm(process, m->comm);
        c.nnodes = m->nnodes;
        if (c.rank < 0) c.rank = m->rank;
        if (c.nranks == 0) c.nranks = m->nranks;
        return;
      }
      return skip(line_number, "its nNodes line lacks a hex comm pointer, a rank, nRanks or nNodes");
    case Form::Call:
      if (const auto m = parse_call(parts->message)) return call(process, thread, *m, line_number);
      return skip(line_number, call_problem(parts->message), true);
    case Form::Tuning:
      if (const auto t = parse_tuning(parts->message)) return tuning(thread, *t, line_number);
      return skip(line_number, "its TUNING line is none of the forms NCCL prints");
    case Form::Other:
      return;
  }
}

void LogReader::call(std::string_view process, std::string_view thread, const CallMessage& m, long line_number) {
  Comm& c = comm(process, m.comm);
  const CallShape shape = make_shape(m.kind, m.dtype, m.op, m.root, m.count, m.nranks);
  CallStats* target = nullptr;
  if (!c.id.empty()) {
    target = &builder_.add_call(c.id, m.nranks, c.nnodes, c.rank, shape);
  } else {
    ++stats.unmapped_calls;
    if (c.nranks == 0) c.nranks = m.nranks;
    target = &unmapped_.add_call(c.local_id, m.nranks, c.nnodes, c.rank, shape);
    if (shape.kind == CallKind::Collective && c.signed_calls < kSignatureCalls) {
      ++c.signed_calls;
      for (std::uint64_t v : {std::uint64_t(shape.collective), std::uint64_t(shape.dtype), shape.count,
                              std::uint64_t(shape.op ? int(*shape.op) + 1 : 0), std::uint64_t(shape.root.value_or(-1) + 1)})
        mix(c.signature, v);
    }
  }
  ++stats.call_lines;
  auto& pending = thread_state(thread, line_number).pending;
  // A new group on this communicator: the last one's calls have had their TUNING lines.
  if (c.launched) std::erase_if(pending, [&](const Pending& p) { return p.comm == &c; });
  if (pending.size() >= kMaxPending) pending.pop_front();
  pending.push_back({&c, m.kind, m.count * dtype_size(m.dtype), shape.bytes, target});
  group_member(c, m.op_count, shape);
}

// A run of the communicator's calls ends when its opCount moves or a TUNING line said the
// run was launched; either makes it a group (of two or more).
void LogReader::group_member(Comm& c, std::uint64_t op_count, const CallShape& shape) {
  const bool moved = c.op_count && *c.op_count != op_count;
  if (moved) c.op_count_moved = true;
  if (!c.run.empty() && (moved || c.launched)) close_run(c, true);
  c.op_count = op_count;
  c.launched = false;
  if (c.run.size() <= max_group_members) c.run.push_back(shape);
}

void LogReader::close_run(Comm& c, bool is_group) {
  if (is_group && c.run.size() >= 2) {
    if (!c.id.empty()) builder_.add_group(c.id, c.nranks, c.nnodes, c.rank, c.run);
    else unmapped_.add_group(c.local_id, c.nranks, c.nnodes, c.rank, c.run);
  }
  c.run.clear();
}

// A TUNING line belongs to the oldest call on its thread with the same function (when the
// line names it) and bytes. NCCL plans a group's calls in its own order (by size), so calls
// before the match keep waiting; point-to-point calls never get one and are dropped when
// their communicator starts its next group.
void LogReader::tuning(std::string_view thread, const TuningMessage& t, long line_number) {
  auto it = threads_.find(thread);
  if (it == threads_.end() || it->second.pending.empty()) return;
  it->second.last_line = line_number;
  auto& pending = it->second.pending;
  const auto named = t.func.empty() ? std::nullopt : nccl_func_kind(t.func);
  // value_or: GCC cannot see through std::optional that `kind` is only read when named.
  const bool has_kind = named.has_value();
  const CallKindOf kind = named.value_or(CallKindOf{});
  const auto match = std::find_if(pending.begin(), pending.end(), [&](const Pending& p) {
    if (has_kind && (kind.kind != p.kind.kind || kind.collective != p.kind.collective)) return false;
    return t.bytes == (t.bytes_are_nbytes ? p.nbytes : p.type_bytes);
  });
  if (match == pending.end()) {
    // 2.20-2.23 print one line for a group's similar calls together: the group was launched.
    pending.back().comm->launched = true;
    return;
  }
  match->comm->launched = true;
  if (t.has_choice) {
    add_applied(*match->stats, t);
    ++stats.tuning_lines;
  }
  pending.erase(match);
}

void LogReader::finish() {
  for (auto& [key, c] : comms_)
    if (!c.run.empty()) close_run(c, c.op_count_moved || c.launched);
  std::vector<UnmappedComm> unmapped;
  for (const auto& [key, c] : comms_)
    unmapped.push_back({c.local_id, c.first_seen, c.rank, c.nranks, c.signature, c.signed_calls});
  stats.matched_communicators = add_matched_communicators(unmapped_, unmapped, builder_);
}

}  // namespace cctune::workload::nccl_log
