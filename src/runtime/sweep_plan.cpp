#include "runtime/sweep_plan.hpp"
#include "runtime/plan_check.hpp"  // plan_from_json checks what it reads

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <optional>
#include <set>

#include "core/error.hpp"
#include "core/json_depth.hpp"  // json_float_beyond_int
#include "core/json_fields.hpp"
#include "core/plan_limits.hpp"
#include "core/results_json.hpp"
#include "core/sizes.hpp"
#include "core/text.hpp"

namespace cctune::runtime {
namespace {

using nlohmann::json;
namespace search = tuner::search;

// The plan carries the sweep's options as given, so a value the options let through (inf,
// nan, a list too long) fails here as often as a build mismatch does: name both.
constexpr const char* kPlanFix =
    "check that option of the sweep (a value out of range); if it is valid, run the same cctune build on every node";

[[noreturn]] void refuse(const std::string& what) { throw UsageError("sweep plan: " + what, kPlanFix); }

const json& field(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key)) refuse(std::string("\"") + key + "\" is missing");
  return j.at(key);
}

std::string shown(const json& v) { return text::json_excerpt(v); }

long whole_in(const json& j, const char* key, long lo, long hi) {
  const json& v = field(j, key);
  if (!v.is_number_integer() || v.get<long>() < lo || v.get<long>() > hi)
    refuse(std::string("\"") + key + "\" is " + shown(v) + ", not a whole number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return v.get<long>();
}

// Seconds or a ratio: finite, above 0 (or 0 itself when `zero_ok`).
double positive(const json& j, const char* key, bool zero_ok = false) {
  const json& v = field(j, key);
  const double x = v.is_number() ? v.get<double>() : -1;
  if (!std::isfinite(x) || x < 0 || (x == 0 && !zero_ok)) refuse(std::string("\"") + key + "\" is " + shown(v) + ", not a positive number");
  return x;
}

std::string text(const json& v, const char* key) {
  if (!v.is_string()) refuse(std::string("\"") + key + "\" is " + shown(v) + ", not a string");
  return v.get<std::string>();
}

const json& array(const json& j, const char* key) {
  const json& v = field(j, key);
  if (!v.is_array()) refuse(std::string("\"") + key + "\" is " + shown(v) + ", not a list");
  return v;
}

// A value core parses (collective, dtype, op): its UsageError gains the key it came from.
template <class Parse>
auto named(const json& v, const char* key, Parse parse) {
  const std::string t = text(v, key);
  try {
    return parse(t);
  } catch (const UsageError& e) {
    refuse(std::string("\"") + key + "\": " + e.what_only());
  }
}

const json& list(const json& j, const char* key, std::size_t most) {
  const json& v = array(j, key);
  if (v.empty() || v.size() > most)
    refuse(std::string("\"") + key + "\" must be a list of 1 to " + std::to_string(most) + " entries");
  return v;
}

// A string (one value, as every plan wrote before lists) or a list of distinct values.
template <class Parse>
auto one_or_list(const json& j, const char* key, std::size_t most, Parse parse) {
  std::vector<decltype(parse(std::string_view{}))> out;
  const json& v = field(j, key);
  if (v.is_string()) return decltype(out){named(v, key, parse)};
  for (const json& e : list(j, key, most)) {
    const auto value = named(e, key, parse);
    if (std::find(out.begin(), out.end(), value) != out.end()) refuse(std::string("\"") + key + "\" holds " + shown(e) + " twice");
    out.push_back(value);
  }
  return out;
}

// One value as a string, several as a list (see to_json in the header).
template <class T>
json one_or_list_json(const std::vector<T>& values) {
  if (values.size() == 1) return to_string(values.front());
  json out = json::array();
  for (const T& v : values) out.push_back(to_string(v));
  return out;
}

void read_measure(const json& j, MeasureSettings& m) {
  m.batch_iters = static_cast<int>(whole_in(j, "iters", 1, INT_MAX));
  m.warmup_iters = static_cast<int>(whole_in(j, "warmup_iters", 0, INT_MAX));
  if (!field(j, "check").is_boolean()) refuse("\"check\" must be true or false");
  m.check = j.at("check").get<bool>();
  m.stop.min_iterations = whole_in(j, "min_iters", 1, INT_MAX);
  m.stop.max_time_s = positive(j, "max_time_s");
  m.stop.target_rel_noise = positive(j, "target_noise");
}

// The grid the JSON's lists name, with ops, root and placements: the whole space of a plain
// sweep, and the lists a workload's shapes or a replayed step must fall within.
void read_dimensions(const json& j, PointSpace& space) {
  PointGrid grid;
  for (const json& c : list(j, "collectives", all_collectives().size())) grid.collectives.push_back(named(c, "collectives", parse_collective));
  for (const json& s : list(j, "sizes_bytes", max_size_count)) {
    if (!s.is_number_unsigned() || s.get<std::uint64_t>() == 0) refuse("\"sizes_bytes\" holds " + shown(s) + ", not a size of at least 1 byte");
    grid.sizes.push_back(s.get<std::uint64_t>());
  }
  grid.dtypes = one_or_list(j, "dtype", all_dtypes().size(), parse_dtype);
  space.ops = one_or_list(j, "op", all_reduce_ops().size(), parse_reduce_op);
  space.placements.clear();
  for (const json& pl : list(j, "placements", 2)) {
    if (pl != "out" && pl != "in") refuse("\"placements\" holds " + shown(pl) + ", not \"out\" or \"in\"");
    space.placements.push_back(pl == "in");
  }
  if (j.contains("root")) {
    space.all_roots = j.at("root") == "all";
    if (!space.all_roots) space.root = static_cast<int>(whole_in(j, "root", 0, INT_MAX));
  }
  space.points = std::move(grid);
}

// Each shape's collective and type must be among the plan's lists, so that the lists still
// say what the sweep measures.
PointShapes read_job_shapes(const json& j, const PointGrid& listed) {
  PointShapes out;
  const json& shapes = list(j, "job_shapes", kMaxJobShapes);
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const json& s = shapes[i];
    const JsonFields fields(s, "sweep plan: job_shapes[" + std::to_string(i) + "]", kPlanFix);
    fields.get<std::string>("dtype");  // a plan's shapes always name it (JobPoint's reader defaults it for old records)
    const JobPoint shape = read_job_point(fields);
    if (shape.size_bytes == 0) refuse("\"job_shapes\" holds size_bytes 0, not a size of at least 1 byte");
    if (std::find(listed.collectives.begin(), listed.collectives.end(), shape.collective) == listed.collectives.end() ||
        std::find(listed.dtypes.begin(), listed.dtypes.end(), shape.dtype) == listed.dtypes.end())
      refuse("\"job_shapes\" holds " + shown(s) + ", whose collective or dtype the plan does not list");
    if (std::find(out.shapes.begin(), out.shapes.end(), shape) != out.shapes.end()) refuse("\"job_shapes\" holds " + shown(s) + " twice");
    out.shapes.push_back(shape);
  }
  return out;
}

// "group" only for a group's members, so that a step without groups is written as before.
json replay_step_json(const std::vector<ReplayCall>& step) {
  json calls = json::array();
  for (const auto& c : step) {
    calls.push_back({{"collective", to_string(c.collective)}, {"dtype", to_string(c.dtype)}, {"op", to_string(c.op)},
                     {"root", c.root}, {"count", c.count}, {"repeats", c.repeats}});
    if (c.group >= 0) calls.back()["group"] = c.group;
  }
  return calls;
}

// A group's members are consecutive and share its "repeats" (the whole group is issued that
// many times), as the NCCL backend issues them. The lists name the largest call (one entry each).
PointStep read_replay_step(const json& j, const PointGrid& listed) {
  PointStep step;
  step.largest = {listed.collectives.front(), listed.dtypes.front(), listed.sizes.front()};
  std::set<int> groups;
  for (const json& c : list(j, "replay_step", kMaxReplayCalls)) {
    ReplayCall call{named(field(c, "collective"), "collective", parse_collective), named(field(c, "dtype"), "dtype", parse_dtype),
                    named(field(c, "op"), "op", parse_reduce_op), static_cast<int>(whole_in(c, "root", 0, INT_MAX)),
                    static_cast<std::uint64_t>(whole_in(c, "count", 1, 1L << 40)),
                    static_cast<int>(whole_in(c, "repeats", 1, kMaxReplayRepeats))};
    if (c.contains("group")) call.group = static_cast<int>(whole_in(c, "group", 0, static_cast<long>(kMaxReplayCalls)));
    const bool continues = call.group >= 0 && !step.calls.empty() && step.calls.back().group == call.group;
    if (continues && step.calls.back().repeats != call.repeats)
      refuse("\"replay_step\" group " + std::to_string(call.group) + " has members with different \"repeats\"");
    if (call.group >= 0 && !continues && !groups.insert(call.group).second)
      refuse("\"replay_step\" group " + std::to_string(call.group) + " is split: its members must be consecutive");
    step.calls.push_back(call);
  }
  return step;
}

ConfigGroup read_group(const json& g) {
  ConfigGroup group;
  group.label = text(field(g, "label"), "label");
  if (!field(g, "env").is_object()) refuse("\"env\" of group " + group.label + " is not an object");
  for (const auto& [key, value] : g.at("env").items()) group.env[key] = text(value, "env");
  return group;
}

void read_nccl(const json& n, NcclSettings& s, PointSpace& space) {
  s.gpus = static_cast<int>(whole_in(n, "gpus", 0, INT_MAX));
  for (const json& g : array(n, "groups")) s.groups.push_back(read_group(g));
  s.emulate_nodes = static_cast<int>(whole_in(n, "emulate_nodes", 1, INT_MAX));
  s.point_timeout_s = positive(n, "point_timeout_s");
  s.group_timeout_s = positive(n, "group_timeout_s", true);
  if (!field(n, "graph").is_boolean()) refuse("\"graph\" must be true or false");
  s.graph = n.at("graph").get<bool>();
  if (n.contains("overlap")) {
    if (!n.at("overlap").is_boolean()) refuse("\"overlap\" must be true or false");
    s.overlap = n.at("overlap").get<bool>();
  }
  if (n.contains("test_shared_gpu")) s.test_shared_gpu = static_cast<int>(whole_in(n, "test_shared_gpu", 0, 16));
  for (const json& c : array(n, "configs")) s.configs.push_back(c.get<PointConfig>());
  std::optional<P2pImplChoice> impl = P2pImplChoice::Native;
  if (n.contains("p2p_impl")) {
    impl = parse_p2p_impl_choice(text(n.at("p2p_impl"), "p2p_impl"));
    if (!impl) refuse("\"p2p_impl\" is " + shown(n.at("p2p_impl")) + ", not " + std::string(p2p_impl_choices));
  }
  space.impls = impls_of(*impl);
  const auto strategy = search::parse_strategy(text(field(n, "search"), "search"));
  if (!strategy) refuse("\"search\" is " + shown(n.at("search")) + ", not " + search::strategy_names);
  s.strategy = *strategy;
}

}  // namespace

P2pImplChoice p2p_impl_of(const PointSpace& space) {
  for (P2pImplChoice c : {P2pImplChoice::Grouped, P2pImplChoice::Both})
    if (space.impls == impls_of(c)) return c;
  return P2pImplChoice::Native;
}

std::string to_string(BackendChoice b) {
  return b == BackendChoice::Nccl ? "nccl" : b == BackendChoice::Mpi ? "mpi" : "auto";
}

json to_json(const SweepPlan& p) {
  const PointSpace& space = p.space;
  json colls = json::array();
  for (auto c : collectives_of(space)) colls.push_back(to_string(c));
  json placements = json::array();
  for (bool ip : space.placements) placements.push_back(ip ? "in" : "out");
  json j = {{"backend", to_string(p.backend)},
            {"collectives", colls},
            {"sizes_bytes", sizes_of(space)},
            {"dtype", one_or_list_json(dtypes_of(space))},
            {"op", one_or_list_json(space.ops)},
            {"placements", placements},
            {"iters", p.measure.batch_iters},
            {"warmup_iters", p.measure.warmup_iters},
            {"check", p.measure.check},
            {"min_iters", p.measure.stop.min_iterations},
            {"max_time_s", p.measure.stop.max_time_s},
            {"target_noise", p.measure.stop.target_rel_noise}};
  if (has_rooted(space)) j["root"] = space.all_roots ? json("all") : json(space.root);
  if (p.backend == BackendChoice::Nccl) {
    json groups = json::array();
    for (const auto& g : p.nccl.groups) {
      groups.push_back({{"label", g.label}, {"env", g.env}});
      if (!g.skips.empty()) groups.back()["skipped_configs"] = g.skips.size();
    }
    j["nccl"] = {{"gpus", p.nccl.gpus},
                 {"groups", groups},
                 {"emulate_nodes", p.nccl.emulate_nodes},
                 {"point_timeout_s", p.nccl.point_timeout_s},
                 {"group_timeout_s", p.nccl.group_timeout_s},
                 {"graph", p.nccl.graph},
                 {"configs", p.nccl.configs},
                 {"search", search::to_string(p.nccl.strategy)}};
    // Only when not the default, so that the settings of earlier runs still match on resume.
    if (const P2pImplChoice impl = p2p_impl_of(space); impl != P2pImplChoice::Native)
      j["nccl"]["p2p_impl"] = std::string(to_string_view(impl));
    if (p.nccl.overlap) j["nccl"]["overlap"] = true;  // only when on: earlier runs' settings still match
    // Only in the test mode, so that a performance run's settings stay as they were.
    if (p.nccl.test_shared_gpu > 0) {
      j["test_mode"] = test_mode_shared_gpu;
      j["nccl"]["test_shared_gpu"] = p.nccl.test_shared_gpu;
    }
  }
  if (const auto* step = std::get_if<PointStep>(&space.points)) j["replay_step"] = replay_step_json(step->calls);
  if (const auto* job = std::get_if<PointShapes>(&space.points)) {
    j["job_shapes"] = job->shapes;  // call shapes: JobPoint's three-key form
  }
  if (!p.skips.empty()) {
    json skips = json::array();
    for (const auto& s : p.skips) skips.push_back({{"collective", to_string(s.collective)}, {"config", s.config}, {"reason", s.reason}});
    j["skips"] = std::move(skips);
  }
  return j;
}

SweepPlan plan_from_json(const json& j) {
  if (const std::string bad = json_float_beyond_int(j); !bad.empty()) refuse(bad + ", out of range");
  try {
    SweepPlan p;
    const json& backend = field(j, "backend");
    if (backend != "mpi" && backend != "nccl") refuse("\"backend\" is " + shown(backend) + ", not \"mpi\" or \"nccl\"");
    p.backend = backend == "nccl" ? BackendChoice::Nccl : BackendChoice::Mpi;
    read_dimensions(j, p.space);
    read_measure(j, p.measure);
    if (p.backend == BackendChoice::Nccl) read_nccl(field(j, "nccl"), p.nccl, p.space);
    // The lists say what a step or the shapes fall within; the count is of what the run walks
    // (a workload's shapes, not the product of their lists, which the supervisor never checked).
    const PointGrid listed = std::get<PointGrid>(p.space.points);
    if (j.contains("replay_step") && j.contains("job_shapes")) refuse("\"replay_step\" and \"job_shapes\" are both given");
    if (j.contains("replay_step")) p.space.points = read_replay_step(j, listed);
    if (j.contains("job_shapes")) p.space.points = read_job_shapes(j, listed);
    check_plan(p);
    if (j.contains("skips"))
      for (const json& k : array(j, "skips"))
        p.skips.push_back({named(field(k, "collective"), "collective", parse_collective), field(k, "config").get<PointConfig>(),
                           text(field(k, "reason"), "reason")});
    return p;
  } catch (const json::exception& e) {  // a wrong type nlohmann finds (a config that is not an object...)
    refuse(e.what());
  }
}

const SweepPlan* plan_of(const Results& results) {
  if (!results.meta.settings.present()) return nullptr;
  return &results.meta.settings.get<SweepPlan>([](const json& settings) {
    try {
      return plan_from_json(settings);
    } catch (const UsageError& e) {
      throw UsageError("meta.settings is not a sweep's plan: " + e.what_only(),
                       "pass a results.json written by cctune sweep (its meta.settings is the resolved plan)");
    }
  });
}

void seed_plan(ResultSection& settings, SweepPlan plan) {
  // As plan_from_json(to_json(plan)) would read it back.
  plan.output_dir.clear();
  plan.skips.clear();
  for (ConfigGroup& g : plan.nccl.groups) g.skips.clear();
  if (plan.backend != BackendChoice::Nccl) {
    plan.nccl = NcclSettings{};
    plan.space.impls.clear();
  }
  if (!has_rooted(plan.space)) {
    plan.space.root = 0;
    plan.space.all_roots = false;
  }
  settings.seed(std::move(plan));
}

void check_root(const SweepPlan& plan, int nranks) {
  // A replayed step's roots are the workload's, one per call: named as such, since no --root was given.
  if (const auto* step = std::get_if<PointStep>(&plan.space.points)) {
    for (const ReplayCall& c : step->calls)
      if (is_rooted(c.collective) && c.root >= nranks)
        throw UsageError("a " + to_string(c.collective) + " call of the workload has root " + std::to_string(c.root) + ", not a rank of this " +
                             std::to_string(nranks) + "-rank job (the root comes from the workload; replay takes no --root)",
                         "replay on as many ranks as the communicator that issued it, or import its capture again");
    return;
  }
  if (plan.space.all_roots || plan.space.root < nranks || !has_rooted(plan.space)) return;
  throw UsageError("--root " + std::to_string(plan.space.root) + " is not a rank of this " + std::to_string(nranks) + "-rank job",
                   "use a root from 0 to " + std::to_string(nranks - 1) + ", or --root all");
}

}  // namespace cctune::runtime
