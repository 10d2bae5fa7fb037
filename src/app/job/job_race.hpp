#pragma once
// Interleaved runs of a user's job under several sides (job_sides.hpp), each timed by its
// step time: the one mechanism under `cctune verify --job` (the profile against NCCL's
// defaults, N pairs) and `cctune tune --job` (candidates raced by successive halving). A pair
// runs both sides back to back, in alternating order from pair to pair, so that drifts of
// the machine and whatever favours the first run cancel in the pair's ratio. Every run is
// recorded in <dir>/job_runs.json as it ends, so a failure or a stop loses nothing.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "app/ab/ab_analysis.hpp"
#include "app/job/job_sides.hpp"
#include "app/run/output_lock.hpp"
#include "app/run/progress.hpp"
#include "runtime/job_command.hpp"

namespace cctune::app {

struct JobArgs {
  std::vector<std::string> command;  // after --
  std::string output_dir;
  int rounds = 6;
  // --until-decided MAX (verify --job): more pairs, up to MAX, until the verdict settles the
  // tolerance (ab_analysis.hpp decided); 0: exactly `rounds` pairs.
  int until_decided = 0;
  double tolerance = 0.02;
  std::optional<std::uint64_t> steps;  // --steps
  int timeout_s = 3600;                // --job-timeout-s, per run
  bool force = false;
};

// --job, --steps, --job-timeout-s (an option group; the last two need --job: CLI11 refuses them
// without it) and the command after -- (`job` set by --job). Returns --job, for the command's
// own `needs` and `excludes`.
CLI::Option* add_job_options(CLI::App& cmd, bool& job, JobArgs& args);

struct RaceSettings {
  runtime::JobCommand command;
  std::string plugin;        // libnccl-tuner-cctune.so: the profiler half on every side
  // Absolute: the job may change directory, and its processes write their profiler files into
  // runs/<n>-<side>/ below it (review R5). job_runs.json lives here too.
  std::string output_dir;
  // What the command writes into output_dir besides runs/ and job_runs.json: refused when
  // present, removed with --force, so that no earlier race's file reads as this one's (R10).
  std::vector<std::string> outputs;
  std::map<std::string, std::string> base_env;  // race_base(...).env: what every run starts from
  std::optional<std::uint64_t> steps;  // --steps: the steps the job runs
  std::chrono::seconds time_limit{3600};
  int planned_runs = 0;      // for the progress line's ETA
};

// The race settings both job commands start from: the command resolved, the output directory
// made absolute, what the command writes there (`outputs`), the environment every run starts
// from (`base_env`: race_base's), and the limits checked (UsageError naming the flag).
RaceSettings race_settings(const JobArgs& args, const std::string& plugin, int planned_runs, std::vector<std::string> outputs,
                           std::map<std::string, std::string> base_env);

struct JobRunRecord {
  int pair = 0;              // 1-based
  std::string side;
  std::string against;       // the pair's other side
  double step_ms = 0;        // ms per call x the first run's calls a step: one step length for every run
  StepTime step;             // as read_step_time gave it
  double wall_s = 0;
  std::string log;           // the job's output
  int leftovers_ended = 0;   // processes the job left behind that cctune ended after the run
  std::uint64_t output_dropped_bytes = 0;  // of the job's output, what job.log does not keep (its middle)
};

class JobRace {
 public:
  // Creates `settings.output_dir` and locks it for the race (the sweep's lock: a second race into
  // it is refused before anything is removed, R9); refuses one that holds job_runs.json, runs/ or
  // any of `settings.outputs` unless `replace`, which removes them.
  JobRace(RaceSettings settings, bool replace);
  // One pair: `a` and `b` in the A/B family's alternating order (ab_side.hpp). Returns the two step
  // times (a, b). Throws RuntimeFailure naming the side, the pair and the log when a run fails
  // or shows no steps; Interrupted when cctune is asked to stop (the runs so far are kept).
  std::pair<double, double> run_pair(const AbSide& a, const AbSide& b);
  const std::vector<JobRunRecord>& runs() const { return runs_; }
  const std::string& output_dir() const { return settings_.output_dir; }

 private:
  double run_one(const AbSide& side, const AbSide& other);
  void save() const;

  RaceSettings settings_;
  OutputLock lock_;
  std::vector<JobRunRecord> runs_;
  int pairs_ = 0;
  std::uint64_t calls_per_step_ = 0;  // the first run's: every run's step time is of this length
  ProgressReporter progress_;
};

// The paired verdict of `b` against `a` (a_ms[i], b_ms[i] one pair): speedup a/b per pair,
// its median and distribution-free interval (ab_analysis.hpp).
AbRow job_verdict(const std::vector<double>& a_ms, const std::vector<double>& b_ms, double tolerance, double confidence = 0.95);

// tune --job's successive-halving cut: `ranked` holds each candidate's pairs (defaults' step, the
// candidate's), best median speedup first; returns the indices that stay, in order. Half (rounded
// up) stay; while a stage has fewer than `rounds` pairs, the sweep's survivors rule
// (tuner/search/survivors.hpp) adds those whose paired interval reaches the last kept one's, up
// to 1.5x the half: over sockets on 4xH200 one profile's steps ran 12-18 ms and another's
// 14-26 ms, and a cut at 2 pairs was decided by 0.03 in the medians. From `rounds` pairs on,
// the medians alone cut.
std::vector<std::size_t> halving_survivors(const std::vector<std::pair<std::vector<double>, std::vector<double>>>& ranked, int pairs,
                                           int rounds);

// A side's or candidate's name as one directory name: at most 64 characters, anything but
// [A-Za-z0-9-] as '_' (names come from the results file: no '/', no "..").
std::string directory_word(const std::string& name);

// Thrown when cctune was asked to stop between or during runs.
struct Interrupted {
  int signal = 0;
};

// How a race command ends short: `record(status)` writes its summary ("interrupted", "failed"),
// `stopped(signal name)` says on stderr what a stop left behind.
struct RaceEnd {
  std::function<void(const std::string& status)> record;
  std::function<std::string(const std::string& signal)> stopped;
};
// Runs `race`, which returns an exit code where it ends the command early. A stop is recorded,
// said and answered with its exit code (runtime::exit_code_for_stop); an Error is recorded and
// rethrown, so that the summary of a race that ends short is never missing.
std::optional<int> race_or_stop(const std::function<std::optional<int>()>& race, const RaceEnd& end);

}  // namespace cctune::app
