#include "workload/workload.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

#include "core/collective_traits.hpp"
#include "core/error.hpp"

namespace cctune::workload {

std::string to_string(CallKind k) {
  switch (k) {
    case CallKind::Collective: return "collective";
    case CallKind::Send: return "send";
    case CallKind::Recv: return "recv";
  }
  return "collective";
}

std::optional<std::uint64_t> nbytes_of(CallKind kind, Collective c, DType t, std::uint64_t count, int nranks) {
  const std::uint64_t n = nranks > 0 ? static_cast<std::uint64_t>(nranks) : 1;
  const bool per_rank = kind == CallKind::Collective && splits_over_ranks(c);
  std::uint64_t bytes = 0;
  if (__builtin_mul_overflow(count, static_cast<std::uint64_t>(dtype_size(t)), &bytes)) return std::nullopt;
  if (per_rank && __builtin_mul_overflow(bytes, n, &bytes)) return std::nullopt;
  if (bytes > max_call_bytes) return std::nullopt;
  return bytes;
}

bool bytes_match(const CallShape& s, int nranks) {
  const auto b = nbytes_of(s.kind, s.collective, s.dtype, s.count, nranks);
  return b && *b == s.bytes;
}

bool valid_communicator_id(std::string_view id) {
  auto all = [](std::string_view s, bool hex) {
    for (char ch : s)
      if (!(ch >= '0' && ch <= '9') && !(hex && ((ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F')))) return false;
    return !s.empty();
  };
  if (id.starts_with("0x")) return id.size() <= 34 && all(id.substr(2), true);
  // The log importer's communicator without an Init line: its process and pointer, already
  // reduced to these characters (nccl_log_import.cpp).
  if (id.starts_with("unmapped:"))
    return id.size() <= 300 && std::all_of(id.begin(), id.end(), [](char ch) {
             return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch != '\0' && std::strchr(".-_:?/#", ch));
           });
  if (!id.starts_with("pg")) return false;
  const std::string_view rest = id.substr(2);
  return (rest.size() <= 20 && all(rest, false)) || (rest.size() == 40 && all(rest, true));
}

void Durations::add(double us) {
  min_us = samples == 0 ? us : std::min(min_us, us);
  max_us = samples == 0 ? us : std::max(max_us, us);
  sum_us += us;
  ++samples;
}

int duration_bucket(double us) {
  if (!(us >= 1.0)) return 0;  // NaN too
  const int b = 1 + static_cast<int>(std::floor(4.0 * std::log2(us)));
  return std::min(b, duration_buckets - 1);
}

double duration_bucket_upper_us(int bucket) { return std::exp2(bucket / 4.0); }

double histogram_quantile_us(const std::map<int, std::uint64_t>& histogram, double q) {
  std::uint64_t total = 0;
  for (const auto& [b, n] : histogram) total += n;
  if (total == 0) return 0;
  const double rank = q * static_cast<double>(total);
  std::uint64_t seen = 0;
  for (const auto& [b, n] : histogram) {
    seen += n;
    if (static_cast<double>(seen) >= rank) return duration_bucket_upper_us(b);
  }
  return duration_bucket_upper_us(histogram.rbegin()->first);
}

void Durations::merge(const Durations& other) {
  if (other.samples == 0) return;
  if (clock.empty()) clock = other.clock;
  else if (!other.clock.empty() && clock != other.clock) clock = "mixed";
  for (const auto& [b, n] : other.histogram) histogram[b] += n;
  min_us = samples == 0 ? other.min_us : std::min(min_us, other.min_us);
  max_us = samples == 0 ? other.max_us : std::max(max_us, other.max_us);
  sum_us += other.sum_us;
  samples += other.samples;
}

std::string describe_shape(const CallShape& s) {
  return (s.kind == CallKind::Collective ? to_string(s.collective) : to_string(s.kind)) + " " + to_string(s.dtype) +
         " count " + std::to_string(s.count);
}

namespace {

void merge_applied(std::vector<Applied>& into, const std::vector<Applied>& from) {
  for (const Applied& a : from) {
    auto same = [&](const Applied& b) { return b.algo == a.algo && b.proto == a.proto && b.channels == a.channels; };
    auto it = std::find_if(into.begin(), into.end(), same);
    if (it == into.end()) into.push_back(a);
    else it->calls = std::max(it->calls, a.calls);  // each rank sees the same calls applied
  }
}

void merge_calls(Communicator& into, const Communicator& part) {
  std::map<CallShape, CallStats> by_shape;
  for (const CallStats& c : into.calls) by_shape.emplace(c.shape, c);
  for (const CallStats& c : part.calls) {
    auto [it, fresh] = by_shape.emplace(c.shape, c);
    if (fresh) continue;
    CallStats& have = it->second;
    if (c.shape.kind == CallKind::Collective) {
      if (have.calls != c.calls)
        throw UsageError("workload: communicator " + into.id + ": " + describe_shape(c.shape) + " was called " +
                             std::to_string(have.calls) + " times on one rank and " + std::to_string(c.calls) + " times on another",
                         "merge captures of the same job and the same steps (a truncated log gives this)");
    } else {
      have.calls += c.calls;
    }
    merge_applied(have.applied, c.applied);
    have.durations.merge(c.durations);
    if (c.first_call && (!have.first_call || *c.first_call < *have.first_call)) have.first_call = c.first_call;
  }
  into.calls.clear();
  for (auto& [shape, stats] : by_shape) into.calls.push_back(stats);
}

// Groups as calls are merged: collective-only groups are issued by every rank, so the ranks
// must agree on their count; groups with sends or receives add up over ranks.
void merge_groups(Communicator& into, const Communicator& part) {
  std::map<std::vector<CallShape>, std::uint64_t> by_members;
  for (const CallGroup& g : into.groups) by_members.emplace(g.members, g.calls);
  for (const CallGroup& g : part.groups) {
    auto [it, fresh] = by_members.emplace(g.members, g.calls);
    if (fresh) continue;
    if (!g.has_p2p()) {
      if (it->second != g.calls)
        throw UsageError("workload: communicator " + into.id + ": a group of " + std::to_string(g.members.size()) +
                             " calls starting with " + describe_shape(g.members.front()) + " was issued " + std::to_string(it->second) +
                             " times on one rank and " + std::to_string(g.calls) + " times on another",
                         "merge captures of the same job and the same steps (a truncated log gives this)");
    } else {
      it->second += g.calls;
    }
  }
  into.groups.clear();
  for (auto& [members, calls] : by_members) into.groups.push_back({members, calls});
}

void merge_communicator(Communicator& into, const Communicator& part) {
  if (into.nranks != part.nranks)
    throw UsageError("workload: communicator " + into.id + " has " + std::to_string(into.nranks) + " ranks in one capture and " +
                         std::to_string(part.nranks) + " in another",
                     "merge captures of one job only");
  for (int r : part.ranks)
    if (std::find(into.ranks.begin(), into.ranks.end(), r) != into.ranks.end())
      throw UsageError("workload: rank " + std::to_string(r) + " of communicator " + into.id + " appears in two captures",
                       "give each rank's capture once");
  into.nnodes = std::max(into.nnodes, part.nnodes);
  into.calls_not_recorded += part.calls_not_recorded;
  into.groups_not_recorded += part.groups_not_recorded;
  into.watch.insert(into.watch.end(), part.watch.begin(), part.watch.end());
  if (part.cadence && (!into.cadence || part.cadence->timed_steps > into.cadence->timed_steps)) into.cadence = part.cadence;
  if (!into.no_step) into.no_step = part.no_step;
  if (into.cadence) into.no_step.reset();  // one rank's steps stand for the communicator
  into.ranks.insert(into.ranks.end(), part.ranks.begin(), part.ranks.end());
  std::sort(into.ranks.begin(), into.ranks.end());
  merge_calls(into, part);
  merge_groups(into, part);
}

}  // namespace

bool CallGroup::has_p2p() const {
  return std::any_of(members.begin(), members.end(), [](const CallShape& s) { return s.kind != CallKind::Collective; });
}

void add_tuner_report(std::optional<TunerReport>& into, const TunerReport& r) {
  if (!into) {
    into = r;
    return;
  }
  if (into->problem.empty()) into->problem = r.problem;
  into->communicators += r.communicators;
  into->with_rules += r.with_rules;
  into->calls_steered += r.calls_steered;
}

Workload merge(const std::vector<Workload>& parts) {
  Workload out;
  std::map<std::string, Communicator> comms;
  for (const Workload& w : parts) {
    if (out.format.empty()) out.format = w.format;
    else if (out.format != w.format) out.format = "mixed";
    out.sources.insert(out.sources.end(), w.sources.begin(), w.sources.end());
    if (w.steps) {
      if (out.steps && *out.steps != *w.steps)
        throw UsageError("workload: the captures cover different step counts (" + std::to_string(*out.steps) + " and " +
                             std::to_string(*w.steps) + ")",
                         "merge captures of the same steps");
      out.steps = w.steps;
    }
    for (const Communicator& c : w.communicators) {
      auto [it, fresh] = comms.emplace(c.id, c);
      if (!fresh) merge_communicator(it->second, c);
    }
    if (w.tuner) add_tuner_report(out.tuner, *w.tuner);
  }
  std::size_t shapes = 0;
  for (auto& [id, c] : comms) {
    shapes += c.calls.size();
    for (const CallGroup& g : c.groups) shapes += g.members.size();
    out.communicators.push_back(std::move(c));
  }
  if (shapes > max_workload_shapes)
    throw UsageError("workload: the merged captures hold " + std::to_string(shapes) + " distinct calls and group members, more than " +
                         std::to_string(max_workload_shapes),
                     "merge fewer captures, or split them by communicator");
  if (!out.steps) out.steps = steps_from_cadence(out);
  return out;
}

namespace {

std::uint64_t calls_per_rank(const Communicator& c) {
  std::uint64_t calls = 0;
  for (const CallStats& s : c.calls) calls += s.calls;
  return c.ranks.empty() ? 0 : calls / c.ranks.size();
}

bool has_steps(const Communicator& c, bool timed) { return c.cadence && !c.ranks.empty() && (!timed || c.cadence->step_ms > 0); }

// The communicator with the most calls per rank, among those with steps (`with_steps`) or all.
const Communicator* busiest_of(const Workload& w, bool timed, bool with_steps) {
  const Communicator* busiest = nullptr;
  for (const Communicator& c : w.communicators)
    if ((!with_steps || has_steps(c, timed)) && (!busiest || calls_per_rank(c) > calls_per_rank(*busiest))) busiest = &c;
  return busiest;
}

}  // namespace

const Communicator* busiest_with_cadence(const Workload& w, bool timed) {
  const Communicator* stepped = busiest_of(w, timed, true);
  const Communicator* busiest = busiest_of(w, timed, false);
  if (!stepped || 10 * calls_per_rank(*stepped) < calls_per_rank(*busiest)) return nullptr;
  return stepped;
}

std::optional<NoStep> why_no_step(const Workload& w, bool timed) {
  if (busiest_with_cadence(w, timed)) return std::nullopt;
  const Communicator* busiest = busiest_of(w, timed, false);
  if (!busiest) return NoStep{"it recorded no communicator", "check that the job's NCCL calls reach the profiler"};
  const std::string which = "communicator " + busiest->id + " (" + std::to_string(calls_per_rank(*busiest)) + " calls a rank)";
  const Communicator* stepped = busiest_of(w, timed, true);
  const std::string others = stepped ? "; the steps of " + stepped->id + " (" + std::to_string(calls_per_rank(*stepped)) +
                                           " calls a rank) are too few calls to stand for the job's"
                                     : "";
  if (busiest->cadence) return NoStep{which + ": its steps were not timed", "run with CCTUNE_WORKLOAD_STEP_TIMES=1"};
  const NoStep what = busiest->no_step.value_or(NoStep{"its calls show no repeating step", "pass --steps N with the steps the job runs"});
  return NoStep{which + ": " + what.reason + others, what.fix};
}

std::optional<double> steps_from_cadence(const Workload& w) {
  const Communicator* busiest = busiest_with_cadence(w, /*timed=*/false);
  if (!busiest) return std::nullopt;
  return busiest->cadence->steps;
}

WorkloadBuilder::PerRank& WorkloadBuilder::per_rank(const std::string& comm_id, int nranks, int nnodes, int rank) {
  PerRank& pr = per_rank_[{comm_id, rank}];
  if (pr.comm.ranks.empty()) pr.comm = Communicator{comm_id, nranks, nnodes, {rank}, {}, 0, {}};
  return pr;
}

namespace {

// The numbers workload_from_json refuses, refused where they are recorded: an importer never
// writes them. Ids are the importers' own (each checks what it takes from a capture; builders
// also hold intermediate ids, as the log importer's per-process communicators) and are checked
// on read.
void check_recordable(const std::string& comm_id, int nranks, int rank, const CallShape& shape) {
  if (nranks < 1 || nranks > max_workload_ranks || rank < -1 || rank >= nranks)
    throw UsageError("workload: communicator " + comm_id + " of " + std::to_string(nranks) + " ranks cannot hold rank " + std::to_string(rank),
                     "pass a capture of the job as its processes wrote it");
  if (!bytes_match(shape, nranks))
    throw UsageError("workload: communicator " + comm_id + ": " + describe_shape(shape) + " on " + std::to_string(nranks) +
                         " ranks is more than " + std::to_string(max_call_bytes >> 30) + " GiB per call",
                     "pass a capture of the job as its processes wrote it");
  if (shape.root && (*shape.root < 0 || *shape.root >= nranks))
    throw UsageError("workload: communicator " + comm_id + ": " + describe_shape(shape) + " has root " + std::to_string(*shape.root) +
                         ", not a rank of its " + std::to_string(nranks),
                     "pass a capture of the job as its processes wrote it");
}

}  // namespace

CallStats& WorkloadBuilder::add_call(const std::string& comm_id, int nranks, int nnodes, int rank, const CallShape& shape) {
  check_recordable(comm_id, nranks, rank, shape);
  PerRank& pr = per_rank(comm_id, nranks, nnodes, rank);
  auto [it, fresh] = pr.calls.try_emplace(shape, CallStats{shape, 0, {}, {}, pr.calls_seen});
  if (fresh && ++shapes_ > max_workload_shapes)
    throw UsageError("workload: the capture holds more than " + std::to_string(max_workload_shapes) + " distinct calls",
                     "capture fewer steps, or split the capture by communicator");
  ++it->second.calls;
  ++pr.calls_seen;
  return it->second;
}

void WorkloadBuilder::add_not_recorded(const std::string& comm_id, int nranks, int nnodes, int rank, std::uint64_t calls) {
  per_rank(comm_id, nranks, nnodes, rank).comm.calls_not_recorded += calls;
}

void WorkloadBuilder::add_group(const std::string& comm_id, int nranks, int nnodes, int rank, const std::vector<CallShape>& members) {
  if (members.size() < 2) return;
  for (const CallShape& m : members) check_recordable(comm_id, nranks, rank, m);
  PerRank& pr = per_rank(comm_id, nranks, nnodes, rank);
  if (members.size() > max_group_members) {
    ++pr.comm.groups_not_recorded;
    return;
  }
  auto [it, fresh] = pr.groups.try_emplace(members, 0);
  // A distinct group's members count against the same bound as distinct shapes: memory stays
  // bounded however many members a hostile capture puts in its groups.
  if (fresh && (shapes_ += members.size()) > max_workload_shapes)
    throw UsageError("workload: the capture holds more than " + std::to_string(max_workload_shapes) + " distinct calls and groups",
                     "capture fewer steps, or split the capture by communicator");
  ++it->second;
}

Workload WorkloadBuilder::finish(std::string format, std::vector<std::string> sources) const {
  std::vector<Workload> parts;
  for (const auto& [key, pr] : per_rank_) {
    Workload w;
    w.communicators.push_back(pr.comm);
    for (const auto& [shape, stats] : pr.calls) w.communicators.back().calls.push_back(stats);
    for (const auto& [members, calls] : pr.groups) w.communicators.back().groups.push_back({members, calls});
    parts.push_back(std::move(w));
  }
  Workload out = merge(parts);
  out.format = std::move(format);
  out.sources = std::move(sources);
  return out;
}

}  // namespace cctune::workload
