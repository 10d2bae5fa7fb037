#include "workload/workload_json.hpp"

#include <algorithm>

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

const json& need(const json& j, const char* key, const std::string& where) {
  if (!j.is_object() || !j.contains(key)) bad(where + "." + key, "is missing");
  return j[key];
}

template <typename T>
T number(const json& j, const char* key, const std::string& where, T min_value) {
  const json& v = need(j, key, where);
  if (!v.is_number_integer() || (v.is_number_integer() && !v.is_number_unsigned() && v.get<long long>() < static_cast<long long>(min_value)))
    bad(where + "." + key, "must be an integer >= " + std::to_string(min_value));
  return v.get<T>();
}

std::string text(const json& j, const char* key, const std::string& where) {
  const json& v = need(j, key, where);
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
  a.calls = number<std::uint64_t>(j, "calls", where, 0);
  if (j.contains("channels")) a.channels = number<int>(j, "channels", where, 0);
  return a;
}

// [[bucket, calls], ...]; the quantiles written next to it are derived and not read back.
std::map<int, std::uint64_t> histogram_from(const json& j, const std::string& where) {
  if (!j.is_array()) bad(where, "must be a list of [bucket, calls] pairs");
  std::map<int, std::uint64_t> h;
  for (const json& pair : j) {
    if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number_integer() || !pair[1].is_number_unsigned() ||
        pair[0].get<long long>() < 0 || pair[0].get<long long>() >= duration_buckets)
      bad(where, "must hold [bucket, calls] pairs with 0 <= bucket < " + std::to_string(duration_buckets));
    h[pair[0].get<int>()] += pair[1].get<std::uint64_t>();
  }
  return h;
}

CallShape shape_from(const json& j, const std::string& where) {
  CallShape s;
  const std::string kind = text(j, "kind", where);
  if (kind == "send") s.kind = CallKind::Send;
  else if (kind == "recv") s.kind = CallKind::Recv;
  else if (kind == "collective") s.collective = parsed(j, "collective", where, parse_collective);
  else bad(where + ".kind", "must be collective, send or recv");
  if (s.kind != CallKind::Collective) s.collective = Collective::SendRecv;
  s.dtype = parsed(j, "dtype", where, parse_dtype);
  if (j.contains("op")) s.op = parsed(j, "op", where, parse_reduce_op);
  if (j.contains("root")) s.root = number<int>(j, "root", where, 0);
  s.count = number<std::uint64_t>(j, "count", where, 0);
  s.bytes = number<std::uint64_t>(j, "bytes", where, 0);
  return s;
}

json group_json(const CallGroup& g, std::optional<double> steps) {
  json j{{"calls", g.calls}};
  if (steps && *steps > 0) j["calls_per_step"] = static_cast<double>(g.calls) / *steps;
  j["members"] = json::array();
  for (const CallShape& m : g.members) j["members"].push_back(shape_json(m));
  return j;
}

std::vector<CallGroup> groups_from(const json& j, const std::string& where) {
  if (!j.is_array()) bad(where, "must be a list");
  std::vector<CallGroup> out;
  for (std::size_t i = 0; i < j.size(); ++i) {
    const std::string w = where + "[" + std::to_string(i) + "]";
    CallGroup g;
    g.calls = number<std::uint64_t>(j[i], "calls", w, 0);
    const json& members = need(j[i], "members", w);
    if (!members.is_array() || members.size() < 2 || members.size() > max_group_members)
      bad(w + ".members", "must be a list of 2 to " + std::to_string(max_group_members) + " call shapes");
    for (std::size_t k = 0; k < members.size(); ++k) g.members.push_back(shape_from(members[k], w + ".members[" + std::to_string(k) + "]"));
    out.push_back(std::move(g));
  }
  std::sort(out.begin(), out.end());
  return out;
}

CallStats call_from(const json& j, const std::string& where) {
  CallStats c;
  c.shape = shape_from(j, where);
  c.calls = number<std::uint64_t>(j, "calls", where, 0);
  if (j.contains("first_call")) c.first_call = number<std::uint64_t>(j, "first_call", where, 0);
  if (j.contains("applied")) {
    if (!j["applied"].is_array()) bad(where + ".applied", "must be a list");
    for (std::size_t i = 0; i < j["applied"].size(); ++i)
      c.applied.push_back(applied_from(j["applied"][i], where + ".applied[" + std::to_string(i) + "]"));
  }
  if (j.contains("duration_us")) {
    const json& d = j["duration_us"];
    const std::string w = where + ".duration_us";
    c.durations.samples = number<std::uint64_t>(d, "samples", w, 0);
    for (auto [key, field] : {std::pair{"sum", &c.durations.sum_us}, {"min", &c.durations.min_us}, {"max", &c.durations.max_us}}) {
      if (!need(d, key, w).is_number()) bad(w + "." + key, "must be a number");
      *field = d[key].get<double>();
    }
    if (d.contains("clock")) c.durations.clock = text(d, "clock", w);
    if (d.contains("histogram")) c.durations.histogram = histogram_from(d["histogram"], w + ".histogram");
  }
  return c;
}

std::vector<WatchFinding> watch_from(const json& j, const std::string& where) {
  if (!j.is_array()) bad(where, "must be a list");
  std::vector<WatchFinding> out;
  for (std::size_t i = 0; i < j.size(); ++i) {
    const std::string w = where + "[" + std::to_string(i) + "]";
    WatchFinding f;
    f.rank = number<int>(j[i], "rank", w, 0);
    f.collective = parsed(j[i], "collective", w, parse_collective);
    f.bytes = number<std::uint64_t>(j[i], "bytes", w, 0);
    f.profile_bytes = number<std::uint64_t>(j[i], "profile_bytes", w, 0);
    for (auto [key, field] : {std::pair{"live_busbw_GBps", &f.live_busbw_GBps}, {"profile_busbw_GBps", &f.profile_busbw_GBps},
                              {"shortfall", &f.shortfall}}) {
      if (!need(j[i], key, w).is_number()) bad(w + "." + key, "must be a number");
      *field = j[i][key].get<double>();
    }
    out.push_back(f);
  }
  return out;
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
                               {"profile_bytes", f.profile_bytes}, {"shortfall", f.shortfall}});
    }
    for (const CallStats& s : c.calls) cj["calls"].push_back(call_json(s, w.steps));
    if (c.groups_not_recorded > 0) cj["groups_not_recorded"] = c.groups_not_recorded;
    if (!c.groups.empty()) {
      cj["groups"] = json::array();
      for (const CallGroup& g : c.groups) cj["groups"].push_back(group_json(g, w.steps));
    }
    j["communicators"].push_back(std::move(cj));
  }
  return j;
}

Workload workload_from_json(const json& j) {
  if (!j.is_object() || !j.contains("schema") || j["schema"] != workload_schema)
    bad("schema", std::string("must be \"") + workload_schema + "\"");
  Workload w;
  w.format = text(j, "format", "");
  const json& sources = need(j, "sources", "");
  if (!sources.is_array() || !std::all_of(sources.begin(), sources.end(), [](const json& s) { return s.is_string(); }))
    bad("sources", "must be a list of strings");
  w.sources = sources.get<std::vector<std::string>>();
  if (j.contains("steps") && !j["steps"].is_null()) {
    if (!j["steps"].is_number() || j["steps"].get<double>() <= 0) bad("steps", "must be a positive number or null");
    w.steps = j["steps"].get<double>();
  }
  const json& comms = need(j, "communicators", "");
  if (!comms.is_array()) bad("communicators", "must be a list");
  for (std::size_t i = 0; i < comms.size(); ++i) {
    const std::string where = "communicators[" + std::to_string(i) + "]";
    Communicator c;
    c.id = text(comms[i], "id", where);
    c.nranks = number<int>(comms[i], "nranks", where, 1);
    if (comms[i].contains("nnodes") && !comms[i]["nnodes"].is_null()) c.nnodes = number<int>(comms[i], "nnodes", where, 1);
    const json& ranks = need(comms[i], "ranks", where);
    if (!ranks.is_array()) bad(where + ".ranks", "must be a list");
    for (const json& r : ranks) {
      if (!r.is_number_integer() || r.get<long long>() < -1 || r.get<long long>() >= c.nranks) bad(where + ".ranks", "holds a rank outside the communicator");
      c.ranks.push_back(r.get<int>());
    }
    if (comms[i].contains("calls_not_recorded"))
      c.calls_not_recorded = number<std::uint64_t>(comms[i], "calls_not_recorded", where, 0);
    if (comms[i].contains("watch")) c.watch = watch_from(comms[i]["watch"], where + ".watch");
    const json& calls = need(comms[i], "calls", where);
    if (!calls.is_array()) bad(where + ".calls", "must be a list");
    for (std::size_t k = 0; k < calls.size(); ++k) c.calls.push_back(call_from(calls[k], where + ".calls[" + std::to_string(k) + "]"));
    if (comms[i].contains("groups_not_recorded"))
      c.groups_not_recorded = number<std::uint64_t>(comms[i], "groups_not_recorded", where, 0);
    if (comms[i].contains("groups")) c.groups = groups_from(comms[i]["groups"], where + ".groups");
    w.communicators.push_back(std::move(c));
  }
  return w;
}

}  // namespace cctune::workload
