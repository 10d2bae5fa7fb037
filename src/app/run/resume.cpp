#include "app/run/resume.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <set>

#include "app/run/plan_difference.hpp"
#include "collectives/engine.hpp"
#include "comm/rank_agreement.hpp"
#include "comm/rank_comm_typed.hpp"
#include "core/collective.hpp"
#include "core/collective_traits.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/json_depth.hpp"
#include "core/json_fields.hpp"
#include "core/results_json.hpp"
#include "core/text.hpp"
#include "runtime/worker_plan.hpp"

namespace cctune::app {

void to_json(nlohmann::json& j, const PointKey& k) {
  j = {{"backend", k.backend},
       {"group", k.group},
       {"collective", to_string(k.collective)},
       {"dtype", to_string(k.dtype)},
       {"op", to_string(k.op)},
       {"in_place", k.in_place},
       {"root", k.root},
       {"size_bytes", k.size_bytes},
       {"algo", std::string(to_string(k.config.algo))},
       {"proto", std::string(to_string(k.config.proto))},
       {"channels", k.config.channels},
       {"graph", k.config.graph}};
  if (k.impl) j["impl"] = std::string(to_string_view(*k.impl));
}

void from_json(const nlohmann::json& j, PointKey& k) {
  const JsonFields in(j, "resume key", "run the same cctune build on every node");
  k.backend = in.get<std::string>("backend");
  k.group = in.get<std::string>("group");
  k.collective = in.get_parsed("collective", parse_collective, "a collective");
  k.dtype = in.get_parsed("dtype", parse_dtype, "a data type");
  k.op = in.get_parsed("op", parse_reduce_op, "a reduction");
  k.in_place = in.get<bool>("in_place");
  k.root = in.get<int>("root");
  k.size_bytes = in.get<std::uint64_t>("size_bytes");
  k.config.algo = in.get_parsed("algo", parse_algorithm_choice, "an algorithm");
  k.config.proto = in.get_parsed("proto", parse_protocol_choice, "a protocol");
  k.config.channels = in.get<int>("channels");
  k.config.graph = in.get<bool>("graph");
  k.impl = std::nullopt;
  const auto impl = [](const std::string& name) {
    const std::optional<P2pImpl> i = parse_p2p_impl(name);
    if (!i) throw UsageError(name, {});  // get_parsed names the field
    return *i;
  };
  if (in.has("impl")) k.impl = in.get_parsed("impl", impl, "an implementation");
}

PointKey key_of(const RunResult& run, const PointResult& p) {
  return {.backend = run.backend,
          .group = run.group,
          .collective = p.collective,
          .dtype = p.dtype,
          .op = p.op,
          .in_place = p.in_place,
          .root = p.root.value_or(0),
          .size_bytes = p.size_bytes,
          .config = p.config,
          .impl = p.impl};
}

namespace {

bool completed(const PointResult& p) { return p.status == PointStatus::Ok || p.status == PointStatus::Skipped; }

// The first run that says how many ranks and nodes measured the earlier points.
const RunResult* sized_run(const Results& r) {
  for (const auto& run : r.runs)
    if (run.nranks > 0) return &run;
  return nullptr;
}

// meta.settings.resumed: written by carry_over, read by resume_history_of; nothing else names it.
constexpr const char* history_key = "resumed";
constexpr const char* history_fix =
    "remove meta.settings.resumed (cctune writes a list there), or start a new sweep with another -o directory";

std::vector<ResumeNote> read_history(const nlohmann::json& settings) {
  std::vector<ResumeNote> notes;
  if (settings.is_null()) return notes;  // a file written before settings were recorded
  const JsonFields s(settings, "meta.settings", history_fix);
  if (!s.has(history_key)) return notes;  // never resumed
  for (std::size_t i = 0; i < s.array(history_key).size(); ++i) {
    const JsonFields n = s.element(history_key, i);
    ResumeNote note{n.get<std::string>("start_time"),
                    n.get<std::string>("previous_status"),
                    n.get<std::string>("previous_end_time"),
                    n.get<std::uint64_t>("points_kept"),
                    {}};
    const nlohmann::json& argv = n.array("argv");
    for (std::size_t k = 0; k < argv.size(); ++k)
      note.argv.push_back(n.read<std::string>(argv[k], n.path("argv") + "[" + std::to_string(k) + "]"));
    notes.push_back(std::move(note));
  }
  return notes;
}

// The history as the file holds it, to append to: notes are copied as written, so fields a
// newer cctune added to them survive this one's resume.
nlohmann::json written_history(const Results& previous) {
  resume_history_of(previous);  // checked first: a history of another form is refused, not extended
  const nlohmann::json& settings = previous.meta.settings.json();
  return settings.is_object() && settings.contains(history_key) ? settings.at(history_key) : nlohmann::json::array();
}

// Reads part of the file being resumed; its one-line error gains "--resume DIR: " (and `fix`,
// when one is given).
template <class Read>
auto read_resumed(const std::string& dir, Read read, const std::string& fix = {}) {
  try {
    return read();
  } catch (const UsageError& e) {
    throw UsageError("--resume " + dir + ": " + e.what_only(), fix.empty() ? e.fix() : fix);
  }
}

// The (collective, data type, size) of every point `plan` measures on `nranks` ranks, sizes as
// enumerate_points makes them of the requested ones (raised to whole elements per rank: 8 B
// allgather on 4 ranks is 16 B), so that rule lives in one place.
using SizedShape = std::tuple<Collective, DType, std::uint64_t>;
std::set<SizedShape> planned_shapes(const runtime::SweepPlan& plan, int nranks) {
  std::set<SizedShape> out;
  for (const PointSpec& spec : runtime::enumerate_points(plan, std::max(nranks, 1)))
    out.emplace(spec.collective, spec.dtype, spec.bytes.size_bytes);
  return out;
}

// A carried point must be one this sweep would measure (its size is one the plan makes) and
// its numbers must agree with each other (busbw = algbw x the collective's bus factor), so an
// edited file cannot slip invented results into the new one.
void check_carried_points(const Results& previous, const runtime::SweepPlan& now, const std::string& dir, const std::string& fix) {
  std::map<int, std::set<SizedShape>> shapes;  // per rank count of the runs
  for (const auto& run : previous.runs)
    for (const auto& p : run.points) {
      if (!completed(p)) continue;
      const std::string what =
          "--resume " + dir + ": a " + to_string(p.collective) + " point of " + std::to_string(p.size_bytes) + " bytes";
      if (!shapes.count(run.nranks)) shapes[run.nranks] = planned_shapes(now, run.nranks);
      if (!shapes[run.nranks].count({p.collective, p.dtype, p.size_bytes}))
        throw UsageError(what + " is not among this sweep's " + to_string(p.collective) + " " + to_string(p.dtype) + " sizes", fix);
      if (p.status != PointStatus::Ok) continue;
      const double expected = p.algbw_GBps * bus_factor(p.collective, run.nranks);
      const bool sane = std::isfinite(p.busbw_GBps) && std::isfinite(p.algbw_GBps) && std::isfinite(p.batch_us) && p.busbw_GBps >= 0 &&
                        p.algbw_GBps >= 0 && p.batch_us >= 0 && std::fabs(p.busbw_GBps - expected) <= 1e-3 * std::max(1.0, expected);
      if (!sane)
        throw UsageError(what + " has busbw " + std::to_string(p.busbw_GBps) + " GB/s, which its algbw and " + std::to_string(run.nranks) +
                             " ranks do not give (an edited file?)",
                         fix);
    }
}

// The first field of `p` (in `run`) that no planned point has, as "collective broadcast";
// empty when each field alone occurs in the plan (then the combination is what is new).
std::string unplanned_field(const PlannedPoints& planned, const PointKey& k) {
  const std::vector<std::pair<std::string, std::function<std::string(const PointKey&)>>> fields = {
      {"backend/group", [](const PointKey& x) { return x.backend + "/" + x.group; }},
      {"collective", [](const PointKey& x) { return to_string(x.collective); }},
      {"dtype", [](const PointKey& x) { return to_string(x.dtype); }},
      {"op", [](const PointKey& x) { return to_string(x.op); }},
      {"placement", [](const PointKey& x) { return std::string(x.in_place ? "in-place" : "out-of-place"); }},
      {"root", [](const PointKey& x) { return std::to_string(x.root); }},
      {"config",
       [](const PointKey& x) {
         return std::string(to_string(x.config.algo)) + "/" + std::string(to_string(x.config.proto)) + "/" +
                std::to_string(x.config.channels) + (x.config.graph ? "/graph" : "");
       }},
      {"size_bytes", [](const PointKey& x) { return std::to_string(x.size_bytes); }}};
  for (const auto& [name, value] : fields) {
    const std::string mine = value(k);
    if (std::none_of(planned.begin(), planned.end(), [&](const auto& e) { return value(e.first) == mine; })) return name + " " + mine;
  }
  return {};
}

// Every carried point must be one this sweep measures, exactly (F8: an edited file carried
// broadcast points into an allreduce sweep, NCCL configs into an MPI one, and a whole run
// of another backend), and its algbw must be what its size and time give.
void check_against_plan(const Results& previous, const PlannedPoints& planned, const std::string& dir, const std::string& fix) {
  std::set<RunKey> runs;
  for (const auto& [key, bytes] : planned) runs.insert({key.backend, key.group});
  for (const auto& run : previous.runs) {
    if (!runs.count({run.backend, run.group}))
      throw UsageError("--resume " + dir + ": run " + run.backend + "/" + run.group + " is not one this sweep runs (an edited file?)", fix);
    for (const auto& p : run.points) {
      if (!completed(p)) continue;
      const PointKey key = key_of(run, p);
      const auto it = planned.find(key);
      const std::string what =
          "--resume " + dir + ": a " + to_string(p.collective) + " point of " + std::to_string(p.size_bytes) + " bytes";
      if (it == planned.end()) {
        const std::string field = unplanned_field(planned, key);
        throw UsageError(
            what + (field.empty() ? " is not a point this sweep measures" : " has " + field + ", which this sweep does not measure"), fix);
      }
      if (p.status != PointStatus::Ok) continue;
      const double expected = bandwidth(p.collective, it->second, p.batch_us, run.nranks).algbw_GBps;
      if (!(p.batch_us > 0) || !(std::fabs(p.algbw_GBps - expected) <= 1e-6 * std::max(1.0, expected)))
        throw UsageError(what + " has algbw " + std::to_string(p.algbw_GBps) + " GB/s, which its size and batch_us " +
                             std::to_string(p.batch_us) + " do not give (an edited file?)",
                         fix);
    }
  }
}

}  // namespace

PlannedPoints planned_points(const std::vector<PointSpec>& specs, const RunKey& run) {
  RunResult owner;
  owner.backend = run.first;
  owner.group = run.second;
  PlannedPoints planned;
  for (const PointSpec& spec : specs) planned.emplace(key_of(owner, describe_point(spec)), spec.bytes.bw_bytes);
  return planned;
}

const std::vector<ResumeNote>& resume_history_of(const Results& results) {
  return results.meta.settings.get<std::vector<ResumeNote>>(read_history);
}

ResumeState ResumeState::from_results(Results previous, const std::string& dir, const nlohmann::json& settings, int nranks, int nnodes,
                                      const PlannedPoints* planned) {
  const std::string where = (std::filesystem::path(dir) / "results.json").string();
  const std::string fix =
      "resume with the options of the interrupted sweep (see meta.argv in " + where + "), or start a new sweep with another -o directory";
  const runtime::SweepPlan now = runtime::plan_from_json(settings);
  const runtime::SweepPlan* before = read_resumed(
      dir, [&] { return runtime::plan_of(previous); }, fix);
  if (!before) throw UsageError("--resume " + dir + ": meta.settings is not a sweep's plan: it is null", fix);
  if (auto diff = first_plan_difference(*before, now); !diff.empty()) throw UsageError("--resume " + dir + ": " + diff, fix);
  read_resumed(dir, [&] { return &resume_history_of(previous); });
  if (const RunResult* run = sized_run(previous)) {
    if (run->nranks != nranks)
      throw UsageError(
          "--resume " + dir + ": measured with " + std::to_string(run->nranks) + " ranks there, " + std::to_string(nranks) + " now", fix);
    if (run->nnodes != nnodes)
      throw UsageError(
          "--resume " + dir + ": measured on " + std::to_string(run->nnodes) + " nodes there, " + std::to_string(nnodes) + " now", fix);
  }
  // The exact plan first: its errors name the field an edited point invented.
  if (planned) check_against_plan(previous, *planned, dir, fix);
  check_carried_points(previous, now, dir, fix);
  ResumeState s;
  s.dir_ = dir;
  for (const auto& run : previous.runs)
    for (const auto& p : run.points)
      if (completed(p)) s.done_.insert(key_of(run, p));
  s.previous_ = std::move(previous);
  return s;
}

ResumeState ResumeState::load(RankComm& comm, const std::string& dir, const nlohmann::json& settings, const PlannedPoints& planned,
                              int nranks, int nnodes) {
  const std::string path = (std::filesystem::path(dir) / "results.json").string();
  // Only rank 0 may see the directory (it writes it), and only rank 0 parses the file: up to
  // its memory bound once per job, not once per rank.
  ResumeState state;
  // The measured points' keys, the one thing the other ranks need (they skip the same points):
  // a few fields per point instead of the whole file on every rank.
  std::vector<PointKey> keys;
  agree_on_errors(comm, [&] {
    if (comm.rank() != 0) return;
    if (!std::filesystem::exists(path))
      throw UsageError("--resume " + dir + ": no results.json there",
                       "pass the output directory of the interrupted sweep (the -o of that run)");
    Results previous;
    try {
      previous = load_results(path);  // with the journal of a killed sweep folded in
    } catch (const UsageError& e) {
      throw UsageError("--resume " + dir + ": " + e.what_only(), "start a new sweep with another -o directory");
    }
    state = from_results(std::move(previous), dir, settings, nranks, nnodes, &planned);
    keys.assign(state.done_.begin(), state.done_.end());
  });
  keys = broadcast_as(comm, keys, 0);
  if (comm.rank() != 0) {
    state.dir_ = dir;
    state.done_ = std::set<PointKey>(keys.begin(), keys.end());
  }
  return state;
}

Results ResumeState::carry_over(Meta fresh, const std::set<RunKey>& will_run) const {
  Results r;
  std::size_t kept = 0;
  for (const auto& run : previous_.runs)
    for (const auto& p : run.points) kept += completed(p) ? 1 : 0;
  nlohmann::json history = written_history(previous_);
  history.push_back({{"start_time", fresh.start_time},
                     {"previous_status", to_string(previous_.meta.status)},
                     {"previous_end_time", previous_.meta.end_time},
                     {"points_kept", kept},
                     {"argv", fresh.argv}});
  nlohmann::json settings = fresh.settings.json();
  settings[history_key] = std::move(history);
  fresh.settings = ResultSection(std::move(settings));
  if (!previous_.meta.start_time.empty()) fresh.start_time = previous_.meta.start_time;
  r.meta = std::move(fresh);
  for (const auto& run : previous_.runs)
    if (!will_run.count({run.backend, run.group})) r.runs.push_back(run);
  r.topology = previous_.topology;
  r.net = previous_.net;
  return r;
}

RunResult ResumeState::continue_run(RunResult fresh) const {
  for (const auto& run : previous_.runs) {
    if (run.backend != fresh.backend || run.group != fresh.group) continue;
    for (const auto& p : run.points)
      if (completed(p)) fresh.points.push_back(p);
    break;
  }
  return fresh;
}

std::string resume_command(const std::vector<std::string>& argv, const std::string& dir) {
  std::string out;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    // --csv FILE goes too: FILE exists now, and a CSV is never overwritten.
    if (a == "-o" || a == "--output" || a == "--resume" || a == "--csv") {
      ++i;  // and its value
      continue;
    }
    if (a.rfind("--output=", 0) == 0 || a.rfind("--resume=", 0) == 0 || a.rfind("--csv=", 0) == 0 ||
        (a.rfind("-o", 0) == 0 && a.size() > 2))
      continue;
    out += (out.empty() ? "" : " ") + text::shell_word(a);
  }
  return out + " --resume " + text::shell_word(dir);
}

}  // namespace cctune::app
