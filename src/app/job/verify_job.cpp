#include "app/job/verify_job.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "app/job/job_race.hpp"
#include "app/cli/session.hpp"
#include "app/verify/ab_groups.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/text.hpp"
#include "runtime/signals.hpp"
#include "runtime/worker_process.hpp"

namespace cctune::app {
namespace {

namespace fs = std::filesystem;

void print_verdict(const AbRow& r) {
  const double change = r.a_median_us > 0 ? (r.b_median_us - r.a_median_us) / r.a_median_us * 100.0 : 0.0;
  std::printf("# job: step time NCCL defaults %.3f ms -> profile %.3f ms (%+.1f %%); speedup %.3f [%.3f, %.3f] (%.0f %% interval) "
              "over %d pairs: %s%s%s\n",
              r.a_median_us / 1000.0, r.b_median_us / 1000.0, change, r.speedup, r.ci_low, r.ci_high, 100 * r.ci_confidence, r.rounds,
              to_string(r.verdict).c_str(), r.note.empty() ? "" : "  # ", r.note.c_str());
}

void write_summary(const std::string& dir, const std::string& profile, const JobArgs& args, const JobRace& race, const AbRow* row,
                   const std::string& status) {
  nlohmann::json doc = {{"schema", "cctune.verify_job/1"},
                        {"status", status},
                        {"profile", profile},
                        {"command", args.command},
                        {"rounds", args.rounds},
                        {"tolerance", args.tolerance},
                        {"method", "the job's step time (profiler half: the steady steps' issue-to-issue time), paired per round "
                                   "default/profile in alternating order; distribution-free interval of the median ratio"},
                        {"runs", (fs::path(dir) / "job_runs.json").string()},
                        {"pairs_done", static_cast<int>(race.runs().size() / 2)}};
  if (args.steps) doc["steps"] = *args.steps;
  if (row)
    doc["job_step"] = {{"default_ms", row->a_median_us / 1000.0}, {"profile_ms", row->b_median_us / 1000.0},
                       {"speedup", row->speedup},           {"ci_low", row->ci_low},
                       {"ci_high", row->ci_high},           {"ci_confidence", row->ci_confidence},
                       {"rounds", row->rounds},             {"verdict", to_string(row->verdict)}};
  const std::string out = (fs::path(dir) / "verify_job.json").string();
  write_file_atomically(out, text::dump_json(doc, 2) + "\n");
  std::printf("# verify: %s\n", text::terminal_text(fs::absolute(out).string()).c_str());
}

}  // namespace

void add_job_options(CLI::App& cmd, bool& job, JobArgs& args) {
  cmd.add_flag("--job", job, "run the job given after -- (torchrun, mpirun, srun, a script) and time its steps (docs/WORKLOAD.md)");
  cmd.add_option("--steps", args.steps, "with --job: the training steps the job runs (default: found from its repeating calls)");
  cmd.add_option("--job-timeout-s", args.timeout_s, "with --job: a run taking longer is killed and the command fails")->capture_default_str();
  cmd.add_option("job_command", args.command, "with --job: the job's command, after --");
}

RaceSettings race_settings(const JobArgs& args, const std::string& plugin, int planned_runs) {
  if (args.command.empty())
    throw UsageError("--job needs the job's command after --", "e.g. cctune verify --job --profile p/profile.json -- torchrun train.py");
  if (args.timeout_s < 1 || args.timeout_s > 7 * 86400) throw UsageError("--job-timeout-s must be 1..604800", "use e.g. --job-timeout-s 3600");
  if (args.steps && (*args.steps < 2 || *args.steps > 1000000000))
    throw UsageError("--steps must be 2..1000000000 (the steps the job runs)", "use e.g. --steps 50");
  RaceSettings s;
  s.command.argv = args.command;
  const char* path = std::getenv("PATH");
  s.command.argv[0] = runtime::resolve_job_executable(args.command[0], path ? path : "");
  s.plugin = plugin;
  s.output_dir = args.output_dir;
  s.steps = args.steps;
  s.time_limit = std::chrono::seconds(args.timeout_s);
  s.planned_runs = planned_runs;
  return s;
}

int run_verify_job(Session& session, const std::string& profile_path, const JobArgs& args) {
  runtime::install_stop_handlers();
  check_ab_flags(args.rounds, args.tolerance);
  const ProfileUnderTest under = load_profile_under_test(profile_path, session.executable());
  JobRace race(race_settings(args, under.plugin, 2 * args.rounds), args.force);
  const JobSide defaults = defaults_side();
  const JobSide profile = profile_side("profile", under.profile, under.path, under.plugin);
  std::printf("# verify --job: %d interleaved pairs of NCCL defaults / profile (%s)\n", args.rounds,
              text::terminal_text(under.path).c_str());
  if (!under.profile.provenance.test_mode.empty())
    std::printf("# TEST MODE profile (%s): this checks the plumbing; its verdict is not performance\n",
                text::terminal_text(under.profile.provenance.test_mode).c_str());
  std::vector<double> a_ms, b_ms;
  try {
    for (int r = 0; r < args.rounds; ++r) {
      const auto [a, b] = race.run_pair(defaults, profile);
      a_ms.push_back(a), b_ms.push_back(b);
    }
  } catch (const Interrupted& stop) {
    write_summary(args.output_dir, under.path, args, race, nullptr, "interrupted");
    std::fprintf(stderr, "cctune: verify --job stopped by %s after %zu pairs; the runs are in %s\n",
                 runtime::signal_name(stop.signal).c_str(), a_ms.size(), text::terminal_text(args.output_dir).c_str());
    return runtime::exit_code_for_stop(stop.signal);
  } catch (const Error&) {
    write_summary(args.output_dir, under.path, args, race, nullptr, "failed");
    throw;
  }
  const AbRow row = job_verdict(a_ms, b_ms, args.tolerance);
  print_verdict(row);
  write_summary(args.output_dir, under.path, args, race, &row, "complete");
  if (row.verdict == Verdict::Slower) {
    std::fprintf(stderr, "cctune: verify --job: the job's step time is longer with the profile than with NCCL's defaults, beyond noise\n");
    return exit_code::regressed;
  }
  return exit_code::ok;
}

}  // namespace cctune::app
