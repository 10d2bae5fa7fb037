// `cctune tune RESULTS`: results -> profile.json, nccl.env, nccl_tuner.conf. The decisions
// are tuner/selection's, the files tuner/export's; this is the thin CLI around them.
#include <cstdio>
#include <filesystem>

#include "app/ab/ab_groups.hpp"
#include "app/ab/ab_side.hpp"
#include "app/cli/command.hpp"
#include "app/cli/session.hpp"
#include "app/commands/commands_list.hpp"
#include "app/job/tune_job.hpp"
#include "app/tune/tune_options.hpp"
#include "core/error.hpp"
#include "core/results_json.hpp"
#include "core/text.hpp"
#include "tuner/export/outputs.hpp"
#include "tuner/selection/selection.hpp"

namespace cctune::app {
namespace {

namespace fs = std::filesystem;

std::size_t count_points(const Results& r) {
  std::size_t n = 0;
  for (const auto& run : r.runs) n += run.points.size();
  return n;
}

class TuneCommand : public Command {
 public:
  void setup(CLI::App& parent) override {
    add_to(parent, "tune", "results.json -> profile.json, nccl.env and nccl_tuner.conf (docs/TUNING.md)");
    cmd_->add_option("results", results_, "results.json written by `cctune sweep`")->required();
    cmd_->add_option("-o,--output-dir", output_dir_, "where to write the three files (default: the results' directory)");
    cmd_->add_option("--min-gain", min_gain_, "switch away from NCCL's default only for at least this gain (fraction)")
        ->check(CLI::Range(0.0, 0.9))
        ->capture_default_str();
    cmd_->add_option("--min-gain-us", min_gain_us_, "...and for at least this many microseconds saved per operation")
        ->check(CLI::Range(0.0, 1e6))
        ->capture_default_str();
    cmd_->add_option("--plugin", plugin_, "absolute path of libnccl-tuner-cctune.so for nccl.env (default: the one built next to cctune)");
    cmd_->add_flag("--no-extend", no_extend_, "kept for scripts; changes nothing: every rule covers only measured sizes (docs/TUNING.md)");
    cmd_->add_option("--workload", workload_,
                     "decide by this job's collective time (workload.json; default: the weights a `sweep --workload` recorded)");
    cmd_->add_flag("--grid", grid_, "ignore the workload a `sweep --workload` recorded: judge every measured size alike");
    cmd_->add_flag("--functional-check", functional_check_,
                   "accept --test-shared-gpu results: the profile (marked test_mode) checks the chain end to end, its rules are no advice");
    cmd_->add_flag("-v,--verbose", verbose_, "print the decision and its reason at every size");
    CLI::Option* job = add_job_options(*cmd_, job_, job_args_);
    cmd_->add_option("--candidates", candidates_, "with --job: candidates raced on the job (1..8)")->capture_default_str()->needs(job);
    cmd_->add_option("--rounds", job_args_.rounds, "with --job: the winner's interleaved pairs against NCCL's defaults, at least")
        ->capture_default_str()
        ->needs(job);
    cmd_->add_option("--tolerance", job_args_.tolerance, "with --job: the winner must be faster beyond this fraction")
        ->capture_default_str()
        ->needs(job);
    cmd_->add_flag("--force", job_args_.force, "with --job: replace earlier job runs in -o")->needs(job);
  }
  bool needs_mpi() const override { return false; }

  int run(Session& session) override {
    const Results results = load_results(results_);
    // A sweep that was killed (SIGKILL, a node crash) never wrote its end: tune what it
    // measured (its journal is folded in above), but say that it is partial.
    if (results.meta.status == MetaStatus::Running)
      std::fprintf(stderr,
                   "cctune: note: %s is from a sweep that never finished (meta.status \"running\": killed, or still measuring); "
                   "this profile covers only its %zu measured points (complete it with: cctune sweep ... --resume DIR)\n",
                   results_.c_str(), count_points(results));
    const std::string mode = test_mode_of(results);
    if (!mode.empty() && !functional_check_)
      throw UsageError(results_ + " was measured in the " + mode +
                           " test mode (--test-shared-gpu: several ranks on one GPU over sockets); its times are no basis for a profile",
                       "re-run the sweep without --test-shared-gpu (one GPU per rank) and tune that, or pass --functional-check "
                       "to check the chain end to end");
    if (mode.empty() && functional_check_)
      throw UsageError("--functional-check is for test-mode results, and " + results_ + " is a real measurement",
                       "drop --functional-check");
    const tuner::TuneOptions options = tune_options_for(
        results, results_,
        {.min_gain = min_gain_, .min_gain_us = min_gain_us_, .extend_edges = !no_extend_, .workload_path = workload_, .grid = grid_});
    if (!job_args_.command.empty() && !job_) throw UsageError("a command after -- is for --job", "add --job to race the candidates on the job");
    if (job_) return tune_on_job(session, results, options);
    tuner::TuneOutputs outputs = tuner::tune_results(results, options);
    if (!mode.empty()) {
      outputs.profile.provenance.test_mode = mode;
      std::fprintf(stderr, "cctune: warning: a functional-check profile from %s test-mode results: its rules check the chain "
                           "(tune, nccl.env, the plugin) and are no tuning advice\n", mode.c_str());
    }

    std::string plugin = plugin_;
    if (plugin.empty()) {
      bool found = false;
      plugin = tuner::find_tuner_plugin(session.executable(), &found);
      if (!found)
        std::fprintf(stderr,
                     "cctune: warning: %s not found next to %s; nccl.env names %s (build the nccl-tuner-cctune target, or "
                     "pass --plugin)\n",
                     tuner::kPluginFileName, session.executable().c_str(), plugin.c_str());
    } else if (!fs::path(plugin).is_absolute()) {
      plugin = fs::absolute(plugin).lexically_normal().string();
    }
    const std::string dir = output_dir_.empty() ? fs::absolute(results_).parent_path().string() : output_dir_;
    const tuner::OutputPaths paths = tuner::write_tune_outputs(outputs, dir, plugin);

    std::fputs(tuner::format_tune_summary(outputs, verbose_).c_str(), stdout);
    // Paths as shell words: the # use: line is meant to be copied into a shell.
    const std::string env_file = text::shell_word(paths.env_file);
    std::printf("# profile: %s\n# env: %s\n# example-tuner CSV: %s\n", text::shell_word(paths.profile).c_str(), env_file.c_str(),
                text::shell_word(paths.tuner_conf).c_str());
    if (!paths.job_time.empty()) std::printf("# job time: %s\n", text::shell_word(paths.job_time).c_str());
    std::printf("# use: NCCL_CONF_FILE=%s <your job>   (or: set -a; . %s; set +a)\n", env_file.c_str(), env_file.c_str());
    return exit_code::ok;
  }

 private:
  int tune_on_job(Session& session, const Results& results, const tuner::TuneOptions& options) {
    if (!test_mode_of(results).empty())
      std::printf("# TEST MODE results: the race checks the plumbing; its verdict is about the job as it ran here\n");
    check_ab_flags(job_args_.rounds, job_args_.tolerance);
    TuneJobRequest request;
    request.results = &results;
    request.options = options;
    // The plugin next to cctune, unless --plugin: the job's profiler half and the candidates' tuner.
    request.plugin = plugin_.empty() ? find_plugin_or_throw(session.executable()) : fs::absolute(plugin_).lexically_normal().string();
    request.output_dir = output_dir_.empty() ? "cctune-tune-job" : output_dir_;
    job_args_.output_dir = request.output_dir;
    request.job = job_args_;
    request.candidates = candidates_;
    return run_tune_job(request);
  }

  bool job_ = false;
  JobArgs job_args_;
  int candidates_ = 3;
  std::string workload_;
  bool grid_ = false;
  bool functional_check_ = false;
  std::string results_;
  std::string output_dir_;
  std::string plugin_;
  double min_gain_ = 0.02;
  double min_gain_us_ = tuner::TuneOptions{}.min_gain_us;
  bool no_extend_ = false;
  bool verbose_ = false;
};

}  // namespace

std::unique_ptr<Command> make_tune_command() { return std::make_unique<TuneCommand>(); }

}  // namespace cctune::app
