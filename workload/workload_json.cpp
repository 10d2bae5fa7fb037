#include "workload/workload_json.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "core/error.hpp"

namespace cctune::workload {
namespace {

using nlohmann::json;

json applied_json(const Applied& a) {
  json j{{"algo", std::string(to_string(a.algo))}, {"proto", std::string(to_string(a.proto))}, {"calls", a.calls}};
  if (a.channels > 0) j["channels"] = a.channels;
  return j;
}

json durations_json(const Durations& d) {
  json j{{"samples", d.samples}, {"sum", d.sum_us}, {"min", d.min_us}, {"max", d.max_us}};
  if (!d.clock.empty()) j["clock"] = d.clock;
  if (!d.histogram.empty()) {
    json buckets = json::array();
    for (const auto& [b, n] : d.histogram) buckets.push_back({b, n});
    j["histogram"] = std::move(buckets);
    for (auto [key, q] : {std::pair{"p50", 0.5}, {"p90", 0.9}, {"p99", 0.99}}) j[key] = histogram_quantile_us(d.histogram, q);
  }
  return j;
}

json shape_json(const CallShape& s) {
  json j{{"kind", to_string(s.kind)}};
  if (s.kind == CallKind::Collective) j["collective"] = to_string(s.collective);
  j["dtype"] = to_string(s.dtype);
  if (s.op) j["op"] = to_string(*s.op);
  if (s.root) j["root"] = *s.root;
  j["count"] = s.count;
  j["bytes"] = s.bytes;
  return j;
}

json call_json(const CallStats& c, std::optional<double> steps) {
  json j = shape_json(c.shape);
  j["calls"] = c.calls;
  if (c.first_call) j["first_call"] = *c.first_call;
  if (steps && *steps > 0) j["calls_per_step"] = static_cast<double>(c.calls) / *steps;
  if (!c.applied.empty()) {
    j["applied"] = json::array();
    for (const Applied& a : c.applied) j["applied"].push_back(applied_json(a));
  }
  if (c.durations.samples > 0) j["duration_us"] = durations_json(c.durations);
  return j;
}

[[noreturn]] void bad(const std::string& where, const std::string& what) {
  throw UsageError("workload: " + where + " " + what, "pass a workload.json written by cctune workload import or merge");
}

// Callers check with it and then take j[key]: GCC 13 reads a reference bound to its result as
// dangling (-Wdangling-reference).
const json& need(const json& j, const char* key, const std::string& where) {
  if (!j.is_object() || !j.contains(key)) bad(where + "." + key, "is missing");
  return j[key];
}

// Every integer field through one bounded getter: an integer in [min_value, max_value], never
// narrowed (nlohmann's get<int>() of 4294967298 gives 2).
template <typename T>
T whole_in(const json& j, const char* key, const std::string& where, T min_value, T max_value) {
  need(j, key, where);
  const json& v = j[key];
  bool ok = false;
  if (v.is_number_unsigned()) ok = v.get<std::uint64_t>() <= static_cast<std::uint64_t>(max_value) && (min_value <= 0 || v.get<std::uint64_t>() >= static_cast<std::uint64_t>(min_value));
  else if (v.is_number_integer()) ok = v.get<std::int64_t>() >= static_cast<std::int64_t>(min_value) && (v.get<std::int64_t>() < 0 || static_cast<std::uint64_t>(v.get<std::int64_t>()) <= static_cast<std::uint64_t>(max_value));
  if (!ok) bad(where + "." + key, "must be an integer from " + std::to_string(min_value) + " to " + std::to_string(max_value));
  return v.is_number_unsigned() ? static_cast<T>(v.get<std::uint64_t>()) : static_cast<T>(v.get<std::int64_t>());
}

// Calls of one shape on one rank: a million a second for eleven days. Sums over every shape of
// a workload stay far from overflow.
constexpr std::uint64_t kMaxCalls = 1000000000000ULL;
constexpr std::uint64_t kMaxIndex = std::uint64_t{1} << 62;
constexpr int kMaxChannels = 1024;

// A duration field: finite and not negative (nlohmann writes infinity as null).
double duration_in(const json& j, const char* key, const std::string& where) {
  need(j, key, where);
  const json& v = j[key];
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0) bad(where + "." + key, "must be a finite number >= 0");
  return v.get<double>();
}

std::string text(const json& j, const char* key, const std::string& where) {
  need(j, key, where);
  const json& v = j[key];
  if (!v.is_string()) bad(where + "." + key, "must be a string");
  return v.get<std::string>();
}

template <typename Parse>
auto parsed(const json& j, const char* key, const std::string& where, Parse parse) {
  const std::string s = text(j, key, where);
  try {
    return parse(s);
  } catch (const Error&) {
    bad(where + "." + key, "is not a known name");
  }
}

Applied applied_from(const json& j, const std::string& where) {
  Applied a;
  const std::string algo = text(j, "algo", where), proto = text(j, "proto", where);
  a.algo = parse_algorithm(algo);
  a.proto = parse_protocol(proto);
  if ((!a.algo && algo != kAutoName) || (!a.proto && proto != kAutoName)) bad(where, "names an unknown algorithm or protocol");
  a.calls = whole_in<std::uint64_t>(j, "calls", where, 0, kMaxCalls);
  if (j.contains("channels")) a.channels = whole_in<int>(j, "channels", where, 0, kMaxChannels);
  return a;
}

// [[bucket, calls], ...]; the quantiles written next to it are derived and not read back.
std::map<int, std::uint64_t> histogram_from(const json& j, const std::string& where) {
  if (!j.is_array()) bad(where, "must be a list of [bucket, calls] pairs");
  std::map<int, std::uint64_t> h;
  for (const json& pair : j) {
    if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number_integer() || !pair[1].is_number_unsigned() ||
        pair[0].get<long long>() < 0 || pair[0].get<long long>() >= duration_buckets || pair[1].get<std::uint64_t>() > kMaxCalls)
      bad(where, "must hold [bucket, calls] pairs with 0 <= bucket < " + std::to_string(duration_buckets) + " and calls <= " + std::to_string(kMaxCalls));
    h[pair[0].get<int>()] += pair[1].get<std::uint64_t>();
  }
  return h;
}

// The shape as a call on `nranks` ranks can have it: root a rank, bytes NCCL's nBytes of count.
CallShape shape_from(const json& j, const std::string& where, int nranks) {
  CallShape s;
  const std::string kind = text(j, "kind", where);
  if (kind == "send") s.kind = CallKind::Send;
  else if (kind == "recv") s.kind = CallKind::Recv;
  else if (kind == "collective") s.collective = parsed(j, "collective", where, parse_collective);
  else bad(where + ".kind", "must be collective, send or recv");
  if (s.kind != CallKind::Collective) s.collective = Collective::SendRecv;
  s.dtype = parsed(j, "dtype", where, parse_dtype);
  if (j.contains("op")) s.op = parsed(j, "op", where, parse_reduce_op);
  if (j.contains("root")) s.root = whole_in<int>(j, "root", where, 0, nranks - 1);
  s.count = whole_in<std::uint64_t>(j, "count", where, 0, max_call_bytes);
  s.bytes = whole_in<std::uint64_t>(j, "bytes", where, 0, max_call_bytes);
  const auto expected = nbytes_of(s.kind, s.collective, s.dtype, s.count, nranks);
  if (!expected) bad(where, "count " + std::to_string(s.count) + " is more than " + std::to_string(max_call_bytes) + " bytes per call");
  if (*expected != s.bytes)
    bad(where + ".bytes", "is " + std::to_string(s.bytes) + " but count " + std::to_string(s.count) + " of " + to_string(s.dtype) + " on " +
                              std::to_string(nranks) + " ranks is " + std::to_string(*expected));
  return s;
}

json group_json(const CallGroup& g, std::optional<double> steps) {
  json j{{"calls", g.calls}};
  if (steps && *steps > 0) j["calls_per_step"] = static_cast<double>(g.calls) / *steps;
  j["members"] = json::array();
  for (const CallShape& m : g.members) j["members"].push_back(shape_json(m));
  return j;
}

std::vector<CallGroup> groups_from(const json& j, const std::string& where, int nranks, std::size_t& shapes) {
  if (!j.is_array()) bad(where, "must be a list");
  std::vector<CallGroup> out;
  for (std::size_t i = 0; i < j.size(); ++i) {
    const std::string w = where + "[" + std::to_string(i) + "]";
    CallGroup g;
    g.calls = whole_in<std::uint64_t>(j[i], "calls", w, 0, kMaxCalls);
    need(j[i], "members", w);
    const json& members = j[i]["members"];
    if (!members.is_array() || members.size() < 2 || members.size() > max_group_members)
      bad(w + ".members", "must be a list of 2 to " + std::to_string(max_group_members) + " call shapes");
    if ((shapes += members.size()) > max_workload_shapes) bad(w, "passes " + std::to_string(max_workload_shapes) + " call shapes and group members");
    for (std::size_t k = 0; k < members.size(); ++k)
      g.members.push_back(shape_from(members[k], w + ".members[" + std::to_string(k) + "]", nranks));
    out.push_back(std::move(g));
  }
  std::sort(out.begin(), out.end());
  return out;
}

CallStats call_from(const json& j, const std::string& where, int nranks) {
  CallStats c;
  c.shape = shape_from(j, where, nranks);
  c.calls = whole_in<std::uint64_t>(j, "calls", where, 0, kMaxCalls);
  if (j.contains("first_call")) c.first_call = whole_in<std::uint64_t>(j, "first_call", where, 0, kMaxIndex);
  if (j.contains("applied")) {
    if (!j["applied"].is_array()) bad(where + ".applied", "must be a list");
    for (std::size_t i = 0; i < j["applied"].size(); ++i)
      c.applied.push_back(applied_from(j["applied"][i], where + ".applied[" + std::to_string(i) + "]"));
  }
  if (j.contains("duration_us")) {
    const json& d = j["duration_us"];
    const std::string w = where + ".duration_us";
    c.durations.samples = whole_in<std::uint64_t>(d, "samples", w, 0, kMaxCalls);
    for (auto [key, field] : {std::pair{"sum", &c.durations.sum_us}, {"min", &c.durations.min_us}, {"max", &c.durations.max_us}})
      *field = duration_in(d, key, w);
    if (c.durations.min_us > c.durations.max_us) bad(w + ".min", "is larger than its max");
    if (d.contains("clock")) c.durations.clock = text(d, "clock", w);
    if (d.contains("histogram")) c.durations.histogram = histogram_from(d["histogram"], w + ".histogram");
  }
  return c;
}

constexpr const char* kRuleReference = "rule";
constexpr const char* kBaselineReference = "baseline";

std::vector<WatchFinding> watch_from(const json& j, const std::string& where, int nranks) {
  if (!j.is_array()) bad(where, "must be a list");
  std::vector<WatchFinding> out;
  for (std::size_t i = 0; i < j.size(); ++i) {
    const std::string w = where + "[" + std::to_string(i) + "]";
    WatchFinding f;
    f.rank = whole_in<int>(j[i], "rank", w, 0, nranks - 1);
    f.collective = parsed(j[i], "collective", w, parse_collective);
    f.bytes = whole_in<std::uint64_t>(j[i], "bytes", w, 0, max_call_bytes);
    f.profile_bytes = whole_in<std::uint64_t>(j[i], "profile_bytes", w, 0, max_call_bytes);
    for (auto [key, field] : {std::pair{"live_busbw_GBps", &f.live_busbw_GBps}, {"profile_busbw_GBps", &f.profile_busbw_GBps}})
      *field = duration_in(j[i], key, w);
    if (!need(j[i], "shortfall", w).is_number() || !std::isfinite(j[i]["shortfall"].get<double>())) bad(w + ".shortfall", "must be a finite number");
    f.shortfall = j[i]["shortfall"].get<double>();
    if (j[i].contains("reference")) {  // absent in files from before it was recorded: rule findings only
      const std::string r = text(j[i], "reference", w);
      if (r != kRuleReference && r != kBaselineReference) bad(w + ".reference", "must be \"rule\" or \"baseline\"");
      f.reference = r == kBaselineReference ? WatchReference::Baseline : WatchReference::Rule;
    }
    out.push_back(f);
  }
  return out;
}

// A NoStep's texts are cctune's own one-line sentences; a file's are bounded like its other texts.
constexpr std::size_t kMaxNoStepText = 1024;

json cadence_json(const StepCadence& c) {
  return {{"calls_per_step", c.calls_per_step}, {"steps", c.steps}, {"timed_steps", c.timed_steps}, {"step_ms", c.step_ms}};
}

StepCadence cadence_from(const json& j, const std::string& where) {
  if (!j.is_object()) bad(where, "must be an object");
  StepCadence c;
  c.calls_per_step = whole_in<std::uint64_t>(j, "calls_per_step", where, 1, kMaxStepCalls);
  c.steps = duration_in(j, "steps", where);
  if (c.steps <= 0 || c.steps > static_cast<double>(kMaxCalls)) bad(where + ".steps", "must be a positive number of steps");
  c.timed_steps = whole_in<std::uint64_t>(j, "timed_steps", where, 1, kMaxCalls);
  c.step_ms = duration_in(j, "step_ms", where);
  // A forged file's 1e300 or 1e-300 ms became a 300-digit speedup (review R12): 0 (not timed),
  // or a step between a tenth of a microsecond and a day.
  if (c.step_ms != 0 && (c.step_ms < 1e-4 || c.step_ms > 8.64e7))
    bad(where + ".step_ms", "is not a step time a job can have (0 when not timed, else 0.0001 ms to a day)");
  return c;
}

json tuner_json(const TunerReport& t) {
  return {{"profile", t.profile},
          {"problem", t.problem},
          {"communicators", t.communicators},
          {"with_rules", t.with_rules},
          {"calls_steered", t.calls_steered}};
}

TunerReport tuner_from(const json& j) {
  const std::string where = "tuner";
  if (!j.is_object()) bad(where, "must be an object");
  TunerReport t;
  t.profile = text(j, "profile", where);
  t.problem = text(j, "problem", where);
  if (t.profile.size() > max_tuner_text || t.problem.size() > max_tuner_text)
    bad(where, "holds a text longer than " + std::to_string(max_tuner_text) + " bytes");
  t.communicators = whole_in<std::uint64_t>(j, "communicators", where, 0, kMaxCalls);
  t.with_rules = whole_in<std::uint64_t>(j, "with_rules", where, 0, t.communicators);
  t.calls_steered = whole_in<std::uint64_t>(j, "calls_steered", where, 0, kMaxCalls);
  return t;
}

json no_step_json(const NoStep& n) { return {{"reason", n.reason.substr(0, kMaxNoStepText)}, {"fix", n.fix.substr(0, kMaxNoStepText)}}; }

NoStep no_step_from(const json& j, const std::string& where) {
  if (!j.is_object()) bad(where, "must be an object");
  NoStep n{text(j, "reason", where), text(j, "fix", where)};
  if (n.reason.size() > kMaxNoStepText || n.fix.size() > kMaxNoStepText)
    bad(where, "holds a text longer than " + std::to_string(kMaxNoStepText) + " bytes");
  return n;
}

// One communicator; `shapes` counts call shapes and group members over the whole file.
Communicator communicator_from(const json& j, const std::string& where, std::size_t& shapes) {
  Communicator c;
  c.id = text(j, "id", where);
  if (!valid_communicator_id(c.id)) bad(where + ".id", "is not a communicator id (0x and hex digits, pg and a number, or pg and 40 hex digits)");
  c.nranks = whole_in<int>(j, "nranks", where, 1, max_workload_ranks);
  if (j.contains("nnodes") && !j["nnodes"].is_null()) c.nnodes = whole_in<int>(j, "nnodes", where, 1, c.nranks);
  need(j, "ranks", where);
  const json& ranks = j["ranks"];
  if (!ranks.is_array()) bad(where + ".ranks", "must be a list");
  for (const json& r : ranks) {
    if (!r.is_number_integer() || r.get<long long>() < -1 || r.get<long long>() >= c.nranks) bad(where + ".ranks", "holds a rank outside the communicator");
    c.ranks.push_back(static_cast<int>(r.get<long long>()));
  }
  if (j.contains("calls_not_recorded")) c.calls_not_recorded = whole_in<std::uint64_t>(j, "calls_not_recorded", where, 0, kMaxCalls);
  if (j.contains("watch")) c.watch = watch_from(j["watch"], where + ".watch", c.nranks);
  need(j, "calls", where);
  const json& calls = j["calls"];
  if (!calls.is_array()) bad(where + ".calls", "must be a list");
  if ((shapes += calls.size()) > max_workload_shapes)
    bad(where + ".calls", "passes " + std::to_string(max_workload_shapes) + " call shapes in the file (memory stays bounded by it)");
  std::set<CallShape> seen;
  for (std::size_t k = 0; k < calls.size(); ++k) {
    const std::string w = where + ".calls[" + std::to_string(k) + "]";
    c.calls.push_back(call_from(calls[k], w, c.nranks));
    if (!seen.insert(c.calls.back().shape).second) bad(w, "repeats a shape already listed in this communicator");
  }
  std::sort(c.calls.begin(), c.calls.end(), [](const CallStats& a, const CallStats& b) { return a.shape < b.shape; });
  if (j.contains("groups_not_recorded")) c.groups_not_recorded = whole_in<std::uint64_t>(j, "groups_not_recorded", where, 0, kMaxCalls);
  if (j.contains("groups")) c.groups = groups_from(j["groups"], where + ".groups", c.nranks, shapes);
  if (j.contains("cadence")) c.cadence = cadence_from(j["cadence"], where + ".cadence");
  if (j.contains("no_step")) {
    if (c.cadence) bad(where + ".no_step", "is given with a cadence");
    c.no_step = no_step_from(j["no_step"], where + ".no_step");
  }
  return c;
}

}  // namespace

json to_json(const Workload& w) {
  json j{{"schema", workload_schema}, {"format", w.format}, {"sources", w.sources}};
  j["steps"] = w.steps ? json(*w.steps) : json(nullptr);
  j["communicators"] = json::array();
  for (const Communicator& c : w.communicators) {
    json cj{{"id", c.id}, {"nranks", c.nranks}, {"ranks", c.ranks}, {"calls", json::array()}};
    cj["nnodes"] = c.nnodes > 0 ? json(c.nnodes) : json(nullptr);
    if (c.calls_not_recorded > 0) cj["calls_not_recorded"] = c.calls_not_recorded;
    if (!c.watch.empty()) {
      cj["watch"] = json::array();
      for (const WatchFinding& f : c.watch)
        cj["watch"].push_back({{"rank", f.rank}, {"collective", to_string(f.collective)}, {"bytes", f.bytes},
                               {"live_busbw_GBps", f.live_busbw_GBps}, {"profile_busbw_GBps", f.profile_busbw_GBps},
                               {"profile_bytes", f.profile_bytes}, {"shortfall", f.shortfall},
                               {"reference", f.reference == WatchReference::Baseline ? kBaselineReference : kRuleReference}});
    }
    for (const CallStats& s : c.calls) cj["calls"].push_back(call_json(s, w.steps));
    if (c.groups_not_recorded > 0) cj["groups_not_recorded"] = c.groups_not_recorded;
    if (!c.groups.empty()) {
      cj["groups"] = json::array();
      for (const CallGroup& g : c.groups) cj["groups"].push_back(group_json(g, w.steps));
    }
    if (c.cadence) cj["cadence"] = cadence_json(*c.cadence);
    if (c.no_step && !c.cadence) cj["no_step"] = no_step_json(*c.no_step);
    j["communicators"].push_back(std::move(cj));
  }
  if (w.tuner) j["tuner"] = tuner_json(*w.tuner);
  return j;
}

Workload workload_from_json(const json& j) {
  if (!j.is_object() || !j.contains("schema") || j["schema"] != workload_schema)
    bad("schema", std::string("must be \"") + workload_schema + "\"");
  Workload w;
  w.format = text(j, "format", "");
  need(j, "sources", "");
  const json& sources = j["sources"];
  if (!sources.is_array() || !std::all_of(sources.begin(), sources.end(), [](const json& s) { return s.is_string(); }))
    bad("sources", "must be a list of strings");
  w.sources = sources.get<std::vector<std::string>>();
  if (j.contains("steps") && !j["steps"].is_null()) {
    if (!j["steps"].is_number() || !std::isfinite(j["steps"].get<double>()) || j["steps"].get<double>() <= 0)
      bad("steps", "must be a positive number or null");
    w.steps = j["steps"].get<double>();
  }
  need(j, "communicators", "");
  const json& comms = j["communicators"];
  if (!comms.is_array()) bad("communicators", "must be a list");
  std::size_t shapes = 0;
  std::set<std::string> ids;
  for (std::size_t i = 0; i < comms.size(); ++i) {
    const std::string where = "communicators[" + std::to_string(i) + "]";
    w.communicators.push_back(communicator_from(comms[i], where, shapes));
    if (!ids.insert(w.communicators.back().id).second) bad(where + ".id", "repeats another communicator's id");
  }
  if (j.contains("tuner")) w.tuner = tuner_from(j["tuner"]);
  return w;
}

}  // namespace cctune::workload
