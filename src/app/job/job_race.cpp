#include "app/job/job_race.hpp"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/text.hpp"
#include "runtime/signals.hpp"
#include "runtime/worker_process.hpp"
#include "tuner/search/survivors.hpp"

namespace cctune::app {
namespace {

namespace fs = std::filesystem;

constexpr const char* kRunsFile = "job_runs.json";
// A failed run's fix, where run_job_command knows no better one.
constexpr const char* kFixTheJob = "fix the job so that it runs as it is, or raise --job-timeout-s when it needs longer";

}  // namespace

std::string directory_word(const std::string& name) {
  std::string out;
  for (char c : name.substr(0, 64)) out.push_back(std::isalnum(static_cast<unsigned char>(c)) || c == '-' ? c : '_');
  return out;
}

namespace {

const std::string& created(const std::string& dir) {
  ensure_writable_directory(dir);
  return dir;
}

}  // namespace

JobRace::JobRace(RaceSettings settings, bool replace)
    : settings_(std::move(settings)), lock_(created(settings_.output_dir), ExistingResults::Replace) {
  std::vector<std::string> names = settings_.outputs;
  names.insert(names.end(), {kRunsFile, "runs"});
  for (const std::string& name : names) {
    const fs::path earlier = fs::path(settings_.output_dir) / name;
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(earlier, ec))) continue;
    if (!replace)
      throw UsageError(text::terminal_text(earlier.string()) + " exists (an earlier job race's output)",
                       "choose another -o directory, or pass --force to replace the earlier race's outputs");
    fs::remove_all(earlier, ec);
    if (ec)
      throw EnvironmentError("cannot remove " + text::terminal_text(earlier.string()) + ": " + ec.message(),
                             "remove it yourself, or choose another -o directory");
  }
  progress_.begin_sweep(settings_.planned_runs);
}

std::pair<double, double> JobRace::run_pair(const AbSide& a, const AbSide& b) {
  const auto [first, second] = alternate(&a, &b, pairs_++);
  const double t_first = run_one(*first, *second);
  const double t_second = run_one(*second, *first);
  return first == &a ? std::pair{t_first, t_second} : std::pair{t_second, t_first};
}

double JobRace::run_one(const AbSide& side, const AbSide& other) {
  if (const int sig = runtime::stop_signal()) throw Interrupted{sig};
  const int n = static_cast<int>(runs_.size()) + 1;
  const fs::path dir = fs::path(settings_.output_dir) / "runs" / (std::to_string(n) + "-" + directory_word(side.name));
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_empty(dir))
    throw EnvironmentError("cannot create an empty " + text::terminal_text(dir.string()) + (ec ? ": " + ec.message() : ""),
                           "choose a writable output directory (-o)");
  const std::string log = (dir / "job.log").string();
  NewFile{log, "choose an output directory (-o) that holds no earlier runs"};  // exclusive: a run never appends to another's output
  const std::string shown = text::terminal_text(side.name);  // a candidate is named after a group of the results file
  progress_.measuring(n - 1, "pair " + std::to_string(pairs_) + ": " + shown);
  const runtime::JobRunResult result = runtime::run_job_command(
      {settings_.command, run_environment(settings_.base_env, side, settings_.plugin, dir.string(), settings_.steps), log,
       settings_.time_limit});
  if (result.stop_signal) throw Interrupted{result.stop_signal};
  if (!result.exited_ok)
    throw RuntimeFailure("the job's run " + std::to_string(n) + " (" + shown + ", pair " + std::to_string(pairs_) + ") " +
                             result.how + "; its output: " + text::terminal_text(log),
                         result.fix.empty() ? std::string(kFixTheJob) : result.fix);
  JobRunRecord r{pairs_, side.name, other.name, 0, read_step_time(dir.string()), result.wall_s, log};
  r.leftovers_ended = result.leftovers_ended;
  r.output_dropped_bytes = result.output_dropped_bytes;
  if (calls_per_step_ == 0) calls_per_step_ = r.step.calls_per_step;
  r.step_ms = r.step.ms_per_call * static_cast<double>(calls_per_step_);
  runs_.push_back(r);
  save();
  std::printf("# run %d, pair %d, %-12s %10.3f ms/step  (%llu calls a step, %llu steps timed, %d processes, %.1f s)\n", n, pairs_,
              shown.c_str(), r.step_ms, static_cast<unsigned long long>(calls_per_step_),
              static_cast<unsigned long long>(r.step.timed_steps), r.step.processes, r.wall_s);
  std::fflush(stdout);
  return r.step_ms;
}

void JobRace::save() const {
  nlohmann::json runs = nlohmann::json::array();
  for (const JobRunRecord& r : runs_)
    runs.push_back({{"pair", r.pair},
                    {"side", r.side},
                    {"against", r.against},
                    {"step_ms", r.step_ms},
                    {"ms_per_call", r.step.ms_per_call},
                    {"calls_per_step_found", r.step.calls_per_step},
                    {"calls_per_step", calls_per_step_},
                    {"timed_steps", r.step.timed_steps},
                    {"processes", r.step.processes},
                    {"wall_s", r.wall_s},
                    {"log", r.log},
                    {"leftovers_ended", r.leftovers_ended},
                    {"output_dropped_bytes", r.output_dropped_bytes}});
  nlohmann::json argv = settings_.command.argv;
  write_file_atomically((fs::path(settings_.output_dir) / kRunsFile).string(),
                        text::dump_json({{"schema", "cctune.job_runs/1"}, {"command", argv}, {"runs", runs}}, 1) + "\n");
}

std::optional<int> race_or_stop(const std::function<std::optional<int>()>& race, const RaceEnd& end) {
  try {
    return race();
  } catch (const Interrupted& stop) {
    end.record("interrupted");
    std::fprintf(stderr, "cctune: %s\n", end.stopped(runtime::signal_name(stop.signal)).c_str());
    return runtime::exit_code_for_stop(stop.signal);
  } catch (const Error&) {
    end.record("failed");
    throw;
  }
}

AbRow job_verdict(const std::vector<double>& a_ms, const std::vector<double>& b_ms, double tolerance, double confidence) {
  AbSamples s;
  for (double v : a_ms) s.a_us.push_back(v * 1000.0);
  for (double v : b_ms) s.b_us.push_back(v * 1000.0);
  return analyze_pair(s, AbOptions{.tolerance = tolerance, .confidence = confidence});
}

std::vector<std::size_t> halving_survivors(const std::vector<std::pair<std::vector<double>, std::vector<double>>>& ranked, int pairs,
                                           int rounds) {
  const std::size_t half = (ranked.size() + 1) / 2;
  // A speedup is better larger: negated, its interval is a cost's.
  std::vector<tuner::search::CostInterval> intervals;
  for (const auto& [a_ms, b_ms] : ranked) {
    const AbRow v = job_verdict(a_ms, b_ms, 0);
    intervals.push_back({-v.ci_high, -v.ci_low});
  }
  return tuner::search::survivors(intervals, half, pairs >= rounds ? 1.0 : tuner::search::default_overlap_cap);
}

CLI::Option* add_job_options(CLI::App& cmd, bool& job, JobArgs& args) {
  CLI::Option_group* group = cmd.add_option_group("job", "run the user's job in place of NCCL workers (docs/WORKLOAD.md)");
  CLI::Option* job_flag =
      group->add_flag("--job", job, "run the job given after -- (torchrun, mpirun, srun, a script) and time its steps (docs/WORKLOAD.md)");
  group->add_option("--steps", args.steps, "with --job: the training steps the job runs (default: found from its repeating calls)")
      ->needs(job_flag);
  group->add_option("--job-timeout-s", args.timeout_s, "with --job: a run taking longer is killed and the command fails")
      ->capture_default_str()
      ->needs(job_flag);
  cmd.add_option("job_command", args.command, "with --job: the job's command, after --");
  return job_flag;
}

RaceSettings race_settings(const JobArgs& args, const std::string& plugin, int planned_runs, std::vector<std::string> outputs,
                           std::map<std::string, std::string> base_env) {
  if (args.command.empty())
    throw UsageError("--job needs the job's command after --", "e.g. cctune verify --job --profile p/profile.json -- torchrun train.py");
  if (args.timeout_s < 1 || args.timeout_s > 7 * 86400)
    throw UsageError("--job-timeout-s must be 1..604800", "use e.g. --job-timeout-s 3600");
  if (args.steps && (*args.steps < 2 || *args.steps > 1000000000))
    throw UsageError("--steps must be 2..1000000000 (the steps the job runs)", "use e.g. --steps 50");
  if (args.until_decided != 0 && (args.until_decided < args.rounds || args.until_decided > 100))
    throw UsageError("--until-decided must be from --rounds (" + std::to_string(args.rounds) + ") to 100 pairs",
                     "use e.g. --until-decided 24");
  RaceSettings s;
  s.command.argv = args.command;
  const char* path = std::getenv("PATH");
  s.command.argv[0] = runtime::resolve_job_executable(args.command[0], path ? path : "");
  s.plugin = plugin;
  // Absolute once: the job's processes write their profiler files below it from whatever
  // directory they run in (review R5: a job that cd'd failed, or wrote into another directory).
  s.output_dir = fs::absolute(args.output_dir).lexically_normal().string();
  s.outputs = std::move(outputs);
  s.base_env = std::move(base_env);
  s.steps = args.steps;
  s.time_limit = std::chrono::seconds(args.timeout_s);
  s.planned_runs = planned_runs;
  return s;
}

}  // namespace cctune::app
