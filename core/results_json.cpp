#include "core/results_json.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>

#include "core/enum_names.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/json_depth.hpp"
#include "core/json_fields.hpp"
#include "core/race_rounds.hpp"
#include "core/results_budget.hpp"
#include "core/results_fields.hpp"
#include "core/results_journal.hpp"
#include "core/text.hpp"

namespace cctune {

using nlohmann::json;

namespace {

// A whole number in [lo, hi] under `key` (or `otherwise` when absent). A float (1e30), a
// negative byte count (-1 would read as 2^64-1) or a value out of range is a UsageError.
template <class T>
T whole(const json& j, const char* key, T lo, T hi, std::optional<T> otherwise = std::nullopt) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) {
    if (otherwise) return *otherwise;
    throw UsageError(std::string("\"") + key + "\" is missing", "pass a results.json written by cctune sweep");
  }
  bool fits = false;
  if (it->is_number_unsigned()) fits = it->get<std::uint64_t>() <= static_cast<std::uint64_t>(hi) && (lo <= 0 || it->get<std::uint64_t>() >= static_cast<std::uint64_t>(lo));
  else if (it->is_number_integer()) fits = it->get<std::int64_t>() >= static_cast<std::int64_t>(lo) && it->get<std::int64_t>() <= static_cast<std::int64_t>(std::min<std::uint64_t>(hi, INT64_MAX));
  if (!fits)
    throw UsageError(std::string("\"") + key + "\" is " + text::json_excerpt(*it) + ", not a whole number in [" + std::to_string(lo) + ", " +
                         std::to_string(hi) + "]",
                     "pass a results.json written by cctune sweep");
  return it->is_number_unsigned() ? static_cast<T>(it->get<std::uint64_t>()) : static_cast<T>(it->get<std::int64_t>());
}

// Per-rank columns to three decimals (1 ns; 0.001 %): "369.692", not "369.6921000000017",
// keeps 1024 ranks x many points small, far below what clocks resolve.
std::vector<double> to_ns(const std::vector<double>& v) {
  std::vector<double> out;
  out.reserve(v.size());
  for (const double x : v) out.push_back(std::round(x * 1000) / 1000);
  return out;
}

// A column of per-rank numbers (points[].ranks): finite, non-negative.
std::vector<double> rank_column(const json& ranks, const char* key) {
  const auto it = ranks.find(key);
  if (it == ranks.end() || !it->is_array())
    throw UsageError(std::string("\"ranks\" has no \"") + key + "\" array", "pass a results.json written by cctune sweep");
  std::vector<double> out;
  out.reserve(it->size());
  for (const json& v : *it) {
    if (!v.is_number() || !(v.get<double>() >= 0) || !std::isfinite(v.get<double>()))
      throw UsageError(std::string("\"ranks.") + key + "\" holds " + text::json_excerpt(v) + ", not a time or percentage >= 0",
                       "pass a results.json written by cctune sweep");
    out.push_back(v.get<double>());
  }
  return out;
}

}  // namespace

std::string to_string(PointStatus s) {
  switch (s) {
    case PointStatus::Ok: return "ok";
    case PointStatus::Skipped: return "skipped";
    case PointStatus::Failed: return "failed";
  }
  return "failed";
}

PointStatus parse_point_status(std::string_view s) {
  if (s == "ok") return PointStatus::Ok;
  if (s == "skipped") return PointStatus::Skipped;
  if (s == "failed") return PointStatus::Failed;
  throw UsageError("unknown point status '" + std::string(s) + "'", "status is one of ok, skipped, failed");
}

namespace {
constexpr NameTable<RunStatus, 3> run_status_names{{
    {RunStatus::Ok, "ok"}, {RunStatus::Failed, "failed"}, {RunStatus::Interrupted, "interrupted"}}};
constexpr NameTable<MetaStatus, 4> meta_status_names{{
    {MetaStatus::Running, "running"}, {MetaStatus::Complete, "complete"}, {MetaStatus::Interrupted, "interrupted"}, {MetaStatus::Failed, "failed"}}};
}  // namespace

std::string to_string(RunStatus s) { return name_of(run_status_names, s); }
std::string to_string(MetaStatus s) { return name_of(meta_status_names, s); }
RunStatus parse_run_status(std::string_view s) { return parse_named(run_status_names, s, "run status"); }
MetaStatus parse_meta_status(std::string_view s) { return parse_named(meta_status_names, s, "sweep status"); }

void to_json(json& j, const Summary& s) {
  j = json{{"median", s.median}, {"mean", s.mean}, {"min", s.min}, {"max", s.max},
           {"p99", s.p99},       {"stddev", s.stddev}, {"cv", s.cv}, {"count", s.count}};
}
void from_json(const json& j, Summary& s) {
  s.median = j.at("median");
  s.mean = j.at("mean");
  s.min = j.at("min");
  s.max = j.at("max");
  s.p99 = j.at("p99");
  s.stddev = j.at("stddev");
  s.cv = j.at("cv");
  s.count = j.at("count");
}

void to_json(json& j, const PointConfig& c) {
  j = json{{"algo", to_string(c.algo)}, {"proto", to_string(c.proto)}, {"channels", c.channels}, {"graph", c.graph}};
}
void from_json(const json& j, PointConfig& c) {
  c.algo = parse_algorithm_choice(j.value("algo", "auto"));
  c.proto = parse_protocol_choice(j.value("proto", "auto"));
  c.channels = whole(j, "channels", 0, 1 << 16, std::optional<int>(0));
  c.graph = j.value("graph", false);
}

// Bounds far above any NCCL's (7 algorithms today): an offer list is outside input.
constexpr std::size_t kMaxOfferedNames = 64;
constexpr std::size_t kMaxAlgorithmNameBytes = 64;

void to_json(json& j, const AlgorithmOffer& o) {
  j = json::array();
  for (Algorithm a : all_algorithms())
    if (contains(o.known, a)) j.push_back(std::string(to_string(a)));
  for (const std::string& name : o.unknown) j.push_back(name);
}
void from_json(const json& j, AlgorithmOffer& o) {
  if (!j.is_array() || j.size() > kMaxOfferedNames)
    throw UsageError("\"offered\" is " + text::json_excerpt(j) + ", not an array of at most " + std::to_string(kMaxOfferedNames) + " algorithm names",
                     "pass a results.json written by cctune sweep");
  o = {};
  for (const json& name : j) {
    if (!name.is_string() || name.get_ref<const std::string&>().empty() || name.get_ref<const std::string&>().size() > kMaxAlgorithmNameBytes)
      throw UsageError("\"offered\" holds " + text::json_excerpt(name) + ", not an algorithm name", "pass a results.json written by cctune sweep");
    const std::string& s = name.get_ref<const std::string&>();
    if (const auto a = parse_algorithm(s)) o.known |= algorithm_bit(*a);
    else if (std::find(o.unknown.begin(), o.unknown.end(), s) == o.unknown.end()) o.unknown.push_back(s);
  }
}

void to_json(json& j, const PointResult& p) {
  j = json{{"collective", to_string(p.collective)},
           {"dtype", to_string(p.dtype)},
           {"op", to_string(p.op)},
           {"in_place", p.in_place},
           {"size_bytes", p.size_bytes},
           {"count", p.count},
           {"config", p.config},
           {"status", to_string(p.status)}};
  if (p.root) j["root"] = *p.root;
  if (p.impl) j["impl"] = std::string(to_string_view(*p.impl));
  if (!p.reason.empty()) j["reason"] = p.reason;
  if (p.screen_round >= 0) j["screen_round"] = p.screen_round;
  if (p.status != PointStatus::Ok) return;
  j["batch_us"] = p.batch_us;
  j["iter_us"] = p.iter_us;
  j["algbw_GBps"] = p.algbw_GBps;
  j["busbw_GBps"] = p.busbw_GBps;
  j["wrong"] = p.wrong;
  j["iterations"] = p.iterations;
  j["stop_reason"] = p.stop_reason ? to_string(*p.stop_reason) : "";
  j["rel_noise"] = p.rel_noise;
  if (!p.ranks.empty())
    j["ranks"] = json{{"batch_us", to_ns(p.ranks.batch_us)}, {"iter_median_us", to_ns(p.ranks.iter_median_us)},
                      {"wait_median_us", to_ns(p.ranks.wait_median_us)}, {"last_pct", to_ns(p.ranks.last_pct)}};
  if (p.chosen_algo) {
    j["chosen"] = json{{"algo", to_string(*p.chosen_algo)}, {"proto", p.chosen_proto ? to_string(*p.chosen_proto) : ""},
                       {"channels", p.chosen_channels}};
    if (!p.offered_algos.empty()) j["chosen"]["offered"] = p.offered_algos;
  }
  if (p.overlap)
    j["overlap"] = json{{"rounds", p.overlap->rounds},
                        {"compute_slowdown", p.overlap->compute_slowdown},
                        {"compute_us", p.overlap->compute_us},
                        {"compute_halfwidth_us", p.overlap->compute_halfwidth_us}};
}

void from_json(const json& j, PointResult& p) {
  p.collective = parse_collective(j.at("collective").get<std::string>());
  p.dtype = parse_dtype(j.at("dtype").get<std::string>());
  p.op = parse_reduce_op(j.value("op", "sum"));
  p.in_place = j.value("in_place", false);
  if (j.contains("root")) p.root = whole(j, "root", 0, 1 << 24);
  p.size_bytes = whole<std::uint64_t>(j, "size_bytes", 0, std::uint64_t{1} << 50);
  p.count = whole<std::uint64_t>(j, "count", 0, std::uint64_t{1} << 50, std::uint64_t{0});
  if (j.contains("config")) p.config = j.at("config").get<PointConfig>();
  if (j.contains("impl")) {
    const auto& impl = j.at("impl");
    p.impl = impl.is_string() ? parse_p2p_impl(impl.get<std::string>()) : std::nullopt;
    if (!p.impl || !has_two_impls(p.collective))
      throw UsageError("point \"impl\" is " + impl.dump(-1, ' ', true, json::error_handler_t::replace) + " for " +
                           to_string(p.collective) + ", not \"native\" or \"grouped\" of alltoall, gather or scatter",
                       "use a results file written by cctune");
  }
  p.status = parse_point_status(j.at("status").get<std::string>());
  p.screen_round = whole(j, "screen_round", -1, 1 << 20, std::optional<int>(-1));
  p.reason = j.value("reason", "");
  if (p.status != PointStatus::Ok) return;
  p.batch_us = j.at("batch_us");
  p.iter_us = j.at("iter_us").get<Summary>();
  p.algbw_GBps = j.at("algbw_GBps");
  p.busbw_GBps = j.at("busbw_GBps");
  p.wrong = whole(j, "wrong", -1L, LONG_MAX, std::optional<long>(-1));
  p.iterations = whole(j, "iterations", 0L, LONG_MAX, std::optional<long>(0));
  if (const std::string stop = j.value("stop_reason", ""); !stop.empty()) p.stop_reason = parse_stop_reason(stop);
  // Too few samples leave the noise infinite, which JSON writes as null.
  const auto noise = j.find("rel_noise");
  p.rel_noise = noise != j.end() && noise->is_number() ? noise->get<double>() : std::numeric_limits<double>::infinity();
  if (j.contains("chosen")) {
    const auto& c = j.at("chosen");
    // Observed, never "auto"; absent or empty: not observed.
    const std::string algo = c.value("algo", ""), proto = c.value("proto", "");
    if (!algo.empty()) p.chosen_algo = parse_algorithm_choice(algo);
    if (!proto.empty()) p.chosen_proto = parse_protocol_choice(proto);
    p.chosen_channels = c.value("channels", 0);
    if (const auto offered = c.find("offered"); offered != c.end()) p.offered_algos = offered->get<AlgorithmOffer>();
  }
  if (const auto it = j.find("ranks"); it != j.end()) {
    p.ranks.batch_us = rank_column(*it, "batch_us");
    p.ranks.iter_median_us = rank_column(*it, "iter_median_us");
    p.ranks.wait_median_us = rank_column(*it, "wait_median_us");
    p.ranks.last_pct = rank_column(*it, "last_pct");
    const std::size_t n = p.ranks.size();
    if (p.ranks.iter_median_us.size() != n || p.ranks.wait_median_us.size() != n || p.ranks.last_pct.size() != n)
      throw UsageError("\"ranks\" columns differ in length", "pass a results.json written by cctune sweep");
  }
  if (const auto it = j.find("overlap"); it != j.end()) {
    // Checked numbers: a slowdown in (0, 1e6], a finite compute_us (below 0 where the compute
    // ran faster beside the collective, noise), as tune adds it to the collective's time.
    const JsonFields fields(*it, "point.overlap", "pass a results.json written by cctune sweep");
    PointOverlap o;
    o.rounds = whole(*it, "rounds", 0, 1 << 24);
    o.compute_slowdown = fields.get<double>("compute_slowdown");
    o.compute_us = fields.get<double>("compute_us");
    // Files written before the spread was recorded prove nothing about it: the whole compute_us.
    o.compute_halfwidth_us = it->contains("compute_halfwidth_us") ? fields.get<double>("compute_halfwidth_us") : std::fabs(o.compute_us);
    if (!(o.compute_slowdown > 0 && o.compute_slowdown <= 1e6) || !std::isfinite(o.compute_us) || std::fabs(o.compute_us) > 1e12 ||
        !(o.compute_halfwidth_us >= 0 && o.compute_halfwidth_us <= 1e12))
      throw UsageError("point.overlap: compute_slowdown must lie in (0, 1e6], compute_us be finite and compute_halfwidth_us >= 0",
                       fields.fix());
    p.overlap = o;
  }
}

void to_json(json& j, const RankPlace& p) { j = json{{"host", p.host}, {"local_rank", p.local_rank}, {"gpu", p.gpu}}; }
void from_json(const json& j, RankPlace& p) {
  p.host = j.value("host", "");
  p.local_rank = whole(j, "local_rank", 0, 1 << 24, std::optional<int>(0));
  p.gpu = whole(j, "gpu", -1, 1 << 16, std::optional<int>(-1));
}

void to_json(json& j, const RunResult& r) {
  j = json{{"backend", r.backend}, {"group", r.group}, {"env", r.env},   {"nranks", r.nranks},
           {"nnodes", r.nnodes},   {"status", to_string(r.status)}, {"points", r.points}};
  if (!r.reason.empty()) j["reason"] = r.reason;
  if (!r.screened.empty()) j["screened"] = r.screened;
  if (r.duration_s > 0) j["duration_s"] = r.duration_s;
  if (r.startup_s > 0) j["startup_s"] = r.startup_s;
  if (!r.places.empty()) j["places"] = r.places;
  if (!r.nccl_env.empty()) j["nccl_env"] = r.nccl_env;
  if (!r.nccl_offered.empty()) {
    json& offered = j["nccl_offered"] = json::object();
    for (const auto& [collective, offer] : r.nccl_offered) offered[to_string(collective)] = offer;
  }
  if (!r.test_mode.empty()) {
    j["test_mode"] = r.test_mode;
    j["test_shared_gpu"] = r.test_shared_gpu;
  }
  if (r.race_round > 0) j["race_round"] = r.race_round;
}
void from_json(const json& j, RunResult& r) {
  r.backend = j.at("backend");
  r.group = j.value("group", "default");
  r.env = j.value("env", std::map<std::string, std::string>{});
  r.nranks = whole(j, "nranks", 1, 1 << 24);  // 0 would skip --resume's rank check
  r.nnodes = whole(j, "nnodes", 1, 1 << 24, std::optional<int>(1));
  r.status = parse_run_status(j.value("status", "ok"));
  r.reason = j.value("reason", "");
  r.points = j.at("points").get<std::vector<PointResult>>();
  r.screened = j.value("screened", std::vector<PointResult>{});
  // Before "impl" existed the NCCL backend ran alltoall, gather and scatter as grouped send/recv.
  if (r.backend == "nccl")
    for (auto* list : {&r.points, &r.screened})
      for (PointResult& p : *list)
        if (!p.impl && has_two_impls(p.collective)) p.impl = P2pImpl::Grouped;
  r.duration_s = j.value("duration_s", 0.0);
  r.startup_s = j.value("startup_s", 0.0);
  r.nccl_env = j.value("nccl_env", std::map<std::string, std::string>{});
  if (const auto offered = j.find("nccl_offered"); offered != j.end()) {
    if (!offered->is_object())
      throw UsageError("run '" + r.group + "' has \"nccl_offered\" " + text::json_excerpt(*offered) + ", not an object keyed by collective",
                       "pass a results.json written by cctune sweep");
    for (const auto& [name, offer] : offered->items()) r.nccl_offered[parse_collective(name)] = offer.get<AlgorithmOffer>();
  }
  r.test_mode = j.value("test_mode", "");
  r.test_shared_gpu = j.value("test_shared_gpu", 0);
  r.race_round = whole(j, "race_round", 0, 1 << 16, std::optional<int>(0));
  r.places = j.value("places", std::vector<RankPlace>{});
  // Per-rank data is indexed by rank: any other length would name the wrong rank.
  const auto n = static_cast<std::size_t>(r.nranks);
  if (!r.places.empty() && r.places.size() != n)
    throw UsageError("run '" + r.group + "' has " + std::to_string(r.places.size()) + " places for " + std::to_string(n) + " ranks",
                     "pass a results.json written by cctune sweep");
  for (const auto* list : {&r.points, &r.screened})
    for (const PointResult& p : *list)
      if (!p.ranks.empty() && p.ranks.size() != n)
        throw UsageError("run '" + r.group + "' has a point with per-rank columns of " + std::to_string(p.ranks.size()) + " for " +
                             std::to_string(n) + " ranks",
                         "pass a results.json written by cctune sweep");
}

void to_json(json& j, const Meta& m) {
  j = json{{"schema", m.schema},         {"argv", m.argv},         {"cctune_version", m.cctune_version},
           {"git_sha", m.git_sha},       {"versions", m.versions}, {"hostnames", m.hostnames},
           {"start_time", m.start_time}, {"end_time", m.end_time}, {"status", to_string(m.status)},
           {"env", m.env},               {"settings", m.settings.json()}};
}
void from_json(const json& j, Meta& m) {
  m.schema = j.at("schema");
  m.argv = j.value("argv", std::vector<std::string>{});
  m.cctune_version = j.value("cctune_version", "");
  m.git_sha = j.value("git_sha", "");
  m.versions = j.value("versions", std::map<std::string, std::string>{});
  m.hostnames = j.value("hostnames", std::vector<std::string>{});
  m.start_time = j.value("start_time", "");
  m.end_time = j.value("end_time", "");
  m.status = parse_meta_status(j.value("status", "running"));  // the schema requires it; absent: unfinished
  m.env = j.value("env", std::map<std::string, std::string>{});
  m.settings = ResultSection(j.value("settings", json::object()));
}

void to_json(json& j, const Results& r) {
  j = json{{"schema", r.meta.schema}, {"meta", r.meta}, {"runs", r.runs}};
  if (r.topology.present()) j["topology"] = r.topology.json();
  if (r.net.present()) j["net"] = r.net.json();
}

void from_json(const json& j, Results& r) {
  check_results_fields(j);  // every field of another type named by its path, before nlohmann could
  const std::string schema = j.value("schema", "");
  if (schema != results_schema && schema != results_schema_v1)
    throw UsageError("schema is '" + schema + "', expected '" + results_schema + "' (or '" + results_schema_v1 + "')",
                     "use results written by this cctune version, or re-run the sweep");
  r.meta = j.at("meta").get<Meta>();
  // A /1 file is a /2 file without per-rank data: what is written back (resume) is /2.
  r.meta.schema = results_schema;
  r.runs = j.at("runs").get<std::vector<RunResult>>();
  r.topology = ResultSection(j.value("topology", json()));
  r.net = ResultSection(j.value("net", json()));
}

Results load_results(const std::string& path) {
  Results r = parse_results(read_file(path), path);
  // A sweep killed before its last rewrite left its latest points in the journal beside.
  fold_journal_beside(r, path);
  fold_race_rounds(r);  // a race stopped before its end left its rounds unfolded
  return r;
}

Results parse_results(const std::string& text, const std::string& path) {
  if (json_nests_deeper_than(text))
    throw UsageError(path + " nests arrays/objects deeper than " + std::to_string(max_json_depth) + " levels",
                     "pass a results.json written by cctune sweep");
  check_results_budget(text, path);
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    throw UsageError(path + " is not valid JSON (truncated or corrupt?): " + e.what(), "re-run the sweep or pass a complete results.json");
  }
  if (const std::string bad = json_float_beyond_int(j); !bad.empty())
    throw UsageError(path + ": " + bad + ", out of range for its field", "pass a results.json written by cctune sweep");
  try {
    return j.get<Results>();
  } catch (const UsageError& e) {
    throw UsageError(path + ": " + e.what_only(), e.fix());
  } catch (const json::exception& e) {
    throw UsageError(path + " does not follow " + std::string(results_schema) + ": " + e.what(), "pass a results.json written by cctune sweep");
  }
}

}  // namespace cctune
