// `cctune verify --profile profile.json`: does the profile still help on this machine?
// Interleaved A/B rounds (NCCL's default, then the profile through the tuner plugin .so)
// run by the NCCL sweep, then per-size speedups with confidence intervals. Exit 4 when a
// size regresses beyond noise, so deployments can be gated on it. docs/TUNING.md "Verify".
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <sstream>

#include "app/ab/ab_analysis.hpp"
#include "app/ab/ab_document.hpp"
#include "app/ab/ab_groups.hpp"
#include "app/ab/ab_samples.hpp"
#include "app/ab/job_step.hpp"
#include "app/ab/verify_plan.hpp"
#include "app/cli/command.hpp"
#include "app/cli/session.hpp"
#include "app/cli/sweep_options.hpp"
#include "app/cli/version_check.hpp"
#include "app/commands/commands_list.hpp"
#include "app/job/verify_job.hpp"
#include "app/run/job_run.hpp"
#include "app/run/plan_agreement.hpp"
#include "app/run/prepared_job.hpp"
#include "app/sweep/workload_dry_run.hpp"
#include "app/workload_input/plan_workload_for.hpp"
#include "app/workload_input/workload_input.hpp"
#include "comm/rank_agreement.hpp"
#include "core/error.hpp"
#include "core/results_json.hpp"
#include "core/units.hpp"
#include "runtime/nccl_job.hpp"
#include "runtime/signals.hpp"
#include "tuner/export/outputs.hpp"
#include "tuner/profile/profile.hpp"

namespace cctune::app {
namespace {

const tuner::ProfileRule* rule_for(const tuner::Profile& p, Collective c, int nranks, int nnodes, std::uint64_t size) {
  for (const auto& r : p.rules)
    if (r.collective == c && r.nranks == nranks && r.nnodes == nnodes && r.min_bytes <= size && size <= r.max_bytes) return &r;
  return nullptr;
}

std::string rule_text(const tuner::ProfileRule* r) {
  if (!r) return "-";
  std::string t = std::string(tuner::to_string(r->algorithm)) + "/" + std::string(tuner::to_string(r->protocol));
  if (r->channels > 0) t += "/" + std::to_string(r->channels);
  return t;
}

class VerifyCommand : public Command {
 public:
  void setup(CLI::App& parent) override {
    add_to(parent, "verify", "A/B check of a profile against NCCL's default (interleaved rounds); exit 4 on a regression");
    add_ab_measurement_options(*cmd_, args_, "cctune-verify");
    // What verify measures on its own NCCL workers; --job runs the user's job instead, so the
    // parser refuses these with it (below).
    CLI::Option_group* workers = cmd_->add_option_group("NCCL workers", "the points and the workers' placement (not with --job)");
    const std::vector<CLI::Option*> shapes = add_shape_options(*workers, args_);
    add_variant_options(*workers, args_);
    add_placement_options(*workers, args_);
    cmd_->add_option("--profile", profile_path_, "profile.json written by cctune tune")->required();
    cmd_->add_option("--rounds", rounds_, "interleaved A/B rounds (6 gives a ~97% interval from min..max)")->capture_default_str();
    cmd_->add_option("--tolerance", tolerance_, "a size regresses when its whole speedup CI is below 1/(1+tolerance)")
        ->capture_default_str();
    CLI::Option* workload = workers->add_option(
        "--workload", workload_path_,
        "A/B on this job's shapes (workload.json) and judge the job's collective time per step; exit 4 when the profile is slower");
    for (CLI::Option* o : shapes) workload->excludes(o);  // the job's shapes are what is measured
    cmd_->add_flag("--force", force_, "replace the results in the -o directory (without it, verify refuses to start)");
    workers->add_option("--workload-sizes", workload_sizes_, "with --workload: most sizes measured; more are bucketed by the job's time")
        ->check(CLI::Range(1, 4096))
        ->capture_default_str();
    workers->add_flag("--workload-rare-shapes", workload_rare_,
                      "with --workload: also measured shapes called in under a tenth of the capture's steps (start-up, checkpoints)");
    CLI::Option* job = add_job_options(*cmd_, job_, job_args_);
    cmd_->add_option("--until-decided", job_args_.until_decided,
                     "with --job: after --rounds pairs, add pairs (up to this many in all) until the verdict settles the tolerance")
        ->needs(job);
    for (CLI::Option* o : workers->get_options()) job->excludes(o);
  }
  bool needs_mpi() const override { return !job_; }

  int run(Session& session) override {
    if (job_) {
      job_args_.rounds = rounds_, job_args_.tolerance = tolerance_, job_args_.force = force_;
      job_args_.output_dir = cmd_->count("-o") ? args_.output_dir : "cctune-verify-job";
      return run_verify_job(session, profile_path_, job_args_);
    }
    if (!job_args_.command.empty()) throw UsageError("a command after -- is for --job", "add --job to run and time the job");
    RankComm& comm = session.comm();
    if (args_.backend != "nccl") throw UsageError("verify runs the NCCL backend only", "drop --backend");
    check_ab_flags(rounds_, tolerance_);

    ProfileUnderTest under_test;
    agree_on_errors(comm, [&] { under_test = load_profile_under_test(profile_path_, session.executable()); });
    const tuner::Profile& profile = under_test.profile;
    const std::string& profile_abs = under_test.path;
    const bool sizes_typed = cmd_->count("-b") + cmd_->count("-e") + cmd_->count("-f") + cmd_->count("-i") + cmd_->count("--sizes") > 0;
    // The points: the profile's sizes, or with a workload the job's shapes for this placement.
    const auto make_points = [&](SweepPlan& plan, JobShape shape) {
      plan = workload_path_.empty()
                 ? resolve_sweep(args_, true, true, verify_overrides(profile, sizes_typed, cmd_->count("--collectives") > 0))
                 : plan_for_workload(session, shape);
      plan.nccl.groups = ab_round_groups(profile, under_test.plugin, profile_abs, rounds_);
      SettingsParts parts;
      parts.workload = job_settings_;
      parts.job = job_plan_ ? &*job_plan_ : nullptr;
      return parts;
    };
    PreparedJob prepared = prepare_nccl_job(session, args_, make_points, force_ ? ExistingResults::Replace : ExistingResults::Refuse);
    const SweepPlan& plan = prepared.plan;
    if (comm.rank() == 0) {
      std::printf("# verify: %d interleaved rounds of default / profile (%s), %zu sizes\n", rounds_, profile_abs.c_str(), sizes_of(plan.space).size());
      if (plan.nccl.test_shared_gpu > 0)
        std::printf("# TEST MODE shared-gpu (--test-shared-gpu %d): this checks the plumbing; its verdicts are not performance\n",
                    plan.nccl.test_shared_gpu);
    }
    return run_prepared_job(session, prepared, [&](const Results& results, const runtime::SweepOutcome& outcome) {
      return report(results, profile, profile_abs, plan.output_dir, outcome);
    });
  }

 private:
  int report(const Results& results, const tuner::Profile& profile, const std::string& profile_abs, const std::string& dir,
             const runtime::SweepOutcome& outcome) const {
    const VerifySamples in = collect_samples(results, rounds_);
    const int nranks = in.nranks, nnodes = in.nnodes;
    const std::vector<SampleKey>& keys = in.keys;
    const AbOptions options{.tolerance = tolerance_};
    const AbReport rep = analyze(in.samples, options);
    const std::optional<AbRow> step = job_plan_ ? std::optional(job_step_row(in, options)) : std::nullopt;

    std::printf("%-16s %9s %12s %12s %8s %19s %8s  %s\n", "collective", "size", "default_us", "profile_us", "speedup", "CI", "verdict",
                "rule");
    AbDocument doc{.schema = "cctune.verify/1",
                   .subject = "each measured call and size: NCCL's defaults against the profile through the tuner plugin",
                   .method = ab_method("per round, the median iteration time of the call"),
                   .rounds = rounds_,
                   .tolerance = tolerance_};
    for (std::size_t i = 0; i < rep.rows.size(); ++i) {
      const AbRow& r = rep.rows[i];
      const auto* rule = rule_for(profile, r.collective, nranks, nnodes, r.size_bytes);
      const std::string name = row_name(keys[i]);
      char ci[64];
      std::snprintf(ci, sizeof ci, "[%.3f, %.3f]", r.ci_low, r.ci_high);
      std::printf("%-16s %9s %12.2f %12.2f %8.3f %19s %8s  %s%s%s\n", name.c_str(), format_size(r.size_bytes).c_str(), r.a_median_us,
                  r.b_median_us, r.speedup, ci, to_string(r.verdict).c_str(), rule_text(rule).c_str(), r.note.empty() ? "" : "  # ",
                  r.note.c_str());
      AbEntry entry{r,
                    AbUnit::Us,
                    {{"collective", to_string(r.collective)},
                     {"dtype", to_string(keys[i].dtype)},
                     {"in_place", keys[i].in_place},
                     {"size_bytes", r.size_bytes},
                     {"rule", rule_text(rule)}}};
      if (keys[i].op) entry.keys["op"] = to_string(*keys[i].op);
      if (keys[i].root) entry.keys["root"] = *keys[i].root;
      doc.rows.push_back(std::move(entry));
    }
    std::printf("# geometric-mean speedup %.3f over %zu sizes: %d faster, %d same, %d slower, %d undecided (tolerance %.1f%%)\n",
                rep.geomean_speedup, rep.rows.size(), rep.faster, rep.same, rep.slower, rep.undecided, 100 * tolerance_);
    if (nranks > 0 && std::none_of(profile.rules.begin(), profile.rules.end(), [&](const auto& r) { return r.nranks == nranks && r.nnodes == nnodes; }))
      std::printf("# note: no rule of the profile is for nranks=%d nnodes=%d; only its env can make a difference here\n", nranks, nnodes);

    if (step) print_job_step(*step);
    doc.extra = {{"profile", profile_abs},
                 {"results", (std::filesystem::path(dir) / "results.json").string()},
                 {"confidence_target", options.confidence},
                 {"nranks", nranks},
                 {"nnodes", nnodes},
                 {"failed_groups", outcome.failed_groups},
                 {"geomean_speedup", rep.geomean_speedup},
                 {"faster", rep.faster},
                 {"same", rep.same},
                 {"slower", rep.slower},
                 {"undecided", rep.undecided},
                 {"regressed", rep.regressed() || (step && step->verdict == Verdict::Slower)}};
    if (const std::string mode = test_mode_of(results); !mode.empty()) doc.extra["test_mode"] = mode;
    if (step) doc.step = AbEntry{*step, AbUnit::Ms, {{"workload", job_settings_}}};
    const std::string out = (std::filesystem::path(dir) / "verify.json").string();
    write_ab_document(doc, out);
    std::printf("# verify: %s\n", std::filesystem::absolute(out).c_str());
    const bool job_slower = step && step->verdict == Verdict::Slower;
    if (job_slower)
      std::fprintf(stderr, "cctune: verify: the job's collective time per step is longer with the profile than with NCCL's default, beyond noise\n");
    if (rep.regressed())
      std::fprintf(stderr, "cctune: verify: %d size(s) slower with the profile than NCCL's default, beyond noise\n", rep.slower);
    if (job_slower || rep.regressed()) return exit_code::regressed;
    if (outcome.failed_groups > 0 || rep.rows.empty()) {
      std::fprintf(stderr, "cctune: verify: %d of %d groups failed (reasons in %s/results.json)\n", outcome.failed_groups, outcome.groups,
                   dir.c_str());
      return exit_code::failure;
    }
    if (rep.undecided > 0 || (step && step->verdict == Verdict::Undecided)) {
      std::fprintf(stderr, "cctune: verify: %d size(s)%s undecided: too few rounds for a %.0f %% interval (raise --rounds to %d)\n",
                   rep.undecided, step && step->verdict == Verdict::Undecided ? " and the job's step" : "", 100 * options.confidence,
                   pairs_for_confidence(options.confidence));
      return exit_code::undecided;
    }
    return exit_code::ok;
  }

  // --workload: the job's shapes this allocation reproduces are the plan's collectives, sizes
  // and types (as `sweep --workload` plans them).
  SweepPlan plan_for_workload(Session& session, JobShape job) {
    const LoadedWorkload loaded = load_workload_on_rank0(session, workload_path_);
    JobWorkload planned =
        plan_workload_for(session, loaded, job, {static_cast<std::size_t>(workload_sizes_), workload_rare_}, args_, true, true);
    job_plan_ = std::move(planned.plan);
    job_settings_ = std::move(planned.settings);
    if (session.rank() == 0) std::printf("%s", format_workload_plan(loaded, job, *job_plan_, &planned.sweep).c_str());
    return std::move(planned.sweep);
  }

  // The job's collective time per step, round by round: NCCL's default (A) against the profile (B).
  AbRow job_step_row(const VerifySamples& in, const AbOptions& options) const {
    std::vector<JobPoint> rows;
    for (const SampleKey& k : in.keys) rows.push_back({k.collective, k.dtype, k.size});
    return analyze_pair(job_step_samples(in.samples, row_weights(rows, job_plan_->points)), options);
  }

  void print_job_step(const AbRow& r) const {
    std::printf("# job: collective time per %s: %s\n", job_plan_->per_step ? "step" : "capture", verdict_line(r, AbUnit::Ms).c_str());
  }

  SweepArgs args_;
  std::string workload_path_;
  int workload_sizes_ = static_cast<int>(workload::default_workload_sizes);
  bool workload_rare_ = false;
  std::optional<workload::WorkloadPlan> job_plan_;
  nlohmann::json job_settings_;
  std::string profile_path_;
  int rounds_ = 6;
  double tolerance_ = 0.02;
  bool force_ = false;  // --force: replace the results in -o
  bool job_ = false;    // --job: A/B on the user's job (app/job/verify_job.hpp)
  JobArgs job_args_;
};

}  // namespace

std::unique_ptr<Command> make_verify_command() { return std::make_unique<VerifyCommand>(); }

}  // namespace cctune::app
