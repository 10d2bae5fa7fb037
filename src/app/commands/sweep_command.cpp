// `cctune sweep`: the main job. Resolves options, checks what can be checked before
// measuring, runs the backend's sweep, and leaves results.json in the output directory.
#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "app/cli/command.hpp"
#include "app/cli/session.hpp"
#include "app/cli/sweep_options.hpp"
#include "app/cli/version_check.hpp"
#include "app/commands/commands_list.hpp"
#include "app/metrics/metrics.hpp"
#include "app/run/job_run.hpp"
#include "app/run/mpi_sweep.hpp"
#include "app/run/plan_agreement.hpp"
#include "app/run/resume.hpp"
#include "app/run/run_meta.hpp"
#include "app/sweep/confirm_round.hpp"
#include "app/sweep/race_sweep.hpp"
#include "app/sweep/space_sweep.hpp"
#include "app/sweep/sweep_outputs.hpp"
#include "app/sweep/transport_context.hpp"
#include "app/sweep/workload_dry_run.hpp"
#include "app/tune/tune_options.hpp"
#include "app/workload_input/plan_workload_for.hpp"
#include "app/workload_input/workload_input.hpp"
#include "comm/rank_agreement.hpp"
#include "comm/rank_comm_typed.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/prometheus_text.hpp"
#include "core/text.hpp"
#include "runtime/nccl_job.hpp"
#include "runtime/signals.hpp"
#include "runtime/worker_plan.hpp"
#include "runtime/worker_process.hpp"

namespace cctune::app {
namespace {

// The space's plan for this job: ranks and nodes from the GPUs every rank owns (unknown on a
// dry run without GPUs, unless --gpus says), nearest NICs from rank 0's topology.
tuner::SpacePlan plan_space_for_job(Session& session, const tuner::SearchSpace& space, SweepPlan& plan,
                                    const std::optional<runtime::NcclJob>& placed, const Results& topology) {
  RankComm& comm = session.comm();
  tuner::SpaceContext context;
  if (placed) {
    context.nranks = placed->shape().nranks;
    context.nnodes = placed->shape().nnodes;
  } else {
    const JobShape planned = runtime::planned_shape(plan.nccl, session.layout().nnodes());
    context.nranks = planned.nranks;
    context.nnodes = std::max(1, planned.nnodes);  // the test mode with unknown workers: unknown nodes
  }
  // Rank 0's topology and environment decide, so every rank plans the same groups and points.
  TransportFacts facts;
  agree_on_errors(comm, [&] {  // rank 0 reads the topology: its error must not leave the others waiting
    if (comm.rank() == 0) facts = transport_facts(topology, runtime::current_environment());
  });
  apply_transport_facts(broadcast_as(comm, facts, 0), context);
  // The resolved plan, not the space alone: flags typed beside --space shape both the dry run
  // and the run.
  tuner::SpacePlan planned = tuner::plan_space(space, context, plan_dimensions(plan));
  planned.strategy = plan.nccl.strategy;
  if (comm.rank() == 0 && !placed && context.nranks == 0)
    std::printf("# no GPU visible here: rank count unknown, so NCCL's per-rank-count limits are not applied (--gpus N plans for N per node)\n");
  return planned;
}

// The communicator shape NCCL will see in this job: placed workers, or on a dry run without
// GPUs what --gpus, --test-shared-gpu and --emulate-nodes say; the MPI backend's ranks.
JobShape job_shape_of(Session& session, const SweepPlan& plan, const std::optional<runtime::NcclJob>& placed) {
  const int nhosts = session.layout().nnodes();
  if (plan.backend != BackendChoice::Nccl) return {session.comm().size(), nhosts};
  const JobShape shape = placed ? placed->shape() : runtime::planned_shape(plan.nccl, nhosts);
  if (shape.nranks <= 0)
    throw UsageError("--workload: no GPU is visible here, so the job's rank count is unknown",
                     "add --gpus N (GPUs per node) to plan the dry run, or run it on the GPU nodes");
  return {shape.nranks, shape.nnodes};
}

// Rank 0 reads the space file and hands its text to every rank, so that node-local copies
// that differ cannot give ranks different plans (F4): the job runs rank 0's space.
tuner::SearchSpace load_space_on_rank0(Session& session, const std::string& name) {
  RankComm& comm = session.comm();
  tuner::SpaceText text;
  agree_on_errors(comm, [&] {
    if (comm.rank() == 0) text = tuner::read_space_text(name, tuner::default_space_dirs(session.executable()));
  });
  const tuner::SpaceText shared = broadcast_as(comm, text, 0);
  tuner::SearchSpace space;
  agree_on_errors(comm, [&] { space = tuner::parse_space(shared.text, shared.source); });
  return space;
}

// What every rank must agree on before anything runs: the resolved plan as meta.settings
// holds it, the space's resolved groups included.
nlohmann::json agreed_settings(const SweepPlan& plan, const SettingsParts& parts) {
  return plan_settings(plan, parts.space, parts.workload);
}

class SweepCommand : public Command {
 public:
  void setup(CLI::App& parent) override {
    add_to(parent, "sweep", "measure collectives over sizes and configurations; write results.json");
    const std::vector<CLI::Option*> shapes = add_sweep_options(*cmd_, args_);
    add_space_options(*cmd_, args_);
    cmd_->add_option("--probe", probe_, "network probe before measuring: auto (when ranks span hosts), ib, tcp, none")
        ->capture_default_str();
    cmd_->add_flag("--no-tune", no_tune_, "do not write profile.json/nccl.env/nccl_tuner.conf at the end");
    cmd_->add_option("--csv", csv_path_, "also write every point to FILE as CSV (created new; never overwritten)");
    cmd_->add_option("--resume", resume_dir_, "continue the interrupted sweep in DIR: measure only the points its results.json lacks, write into DIR");
    cmd_->add_option("--prometheus", prom_path_, "also write busbw and time per point to FILE (*.prom) for node_exporter's textfile collector");
    CLI::Option* workload = cmd_->add_option("--workload", workload_path_,
                                             "measure a job's own shapes: workload.json from `cctune workload import` (docs/WORKLOAD.md); "
                                             "with --dry-run, print them with their weights");
    for (CLI::Option* o : shapes) workload->excludes(o);  // the job's shapes are what is measured
    cmd_->add_option("--workload-sizes", workload_sizes_, "with --workload: most sizes planned; more are bucketed by the job's time")
        ->check(CLI::Range(1, 4096))
        ->capture_default_str();
    cmd_->add_flag("--workload-rare-shapes", workload_rare_,
                   "with --workload: also planned shapes called in under a tenth of the capture's steps (start-up, checkpoints)");
    cmd_->add_flag("--force", force_, "replace the results.json already in the -o directory (without it, the sweep refuses to start)");
    cmd_->add_option("--confirm-rounds", confirm_.rounds,
                     "nccl: before writing the profile, measure its rules' sizes again against NCCL's defaults in N interleaved "
                     "rounds and keep only the rules that read faster (0: no confirmation round)")
        ->check(CLI::Range(0, 100))
        ->capture_default_str();
    cmd_->add_option("--budget-s", budget_s_,
                     "with --space: race the space's groups within about S seconds of measuring (docs/TUNING.md \"The race\"); "
                     "0: every group measures every config. Default: 120 with --workload, else 0")
        ->check(CLI::Range(0.0, 86400.0))
        ->needs(cmd_->get_option("--space"));
  }

  int run(Session& session) override {
    runtime::install_stop_handlers();
    RankComm& comm = session.comm();
    // Every rank checks the name; one line for the job (agreed), before anything runs.
    if (!prom_path_.empty()) agree_on_errors(comm, [&] { prometheus::check_prom_file_name(prom_path_); });
    std::optional<tuner::SearchSpace> space;
    PlanOverrides overrides;  // the space's values where no flag was typed
    if (!args_.space.empty()) {
      space = load_space_on_rank0(session, args_.space);
      space_ = &*space;
      overrides = space_overrides(*space, [&](const std::string& option) { return cmd_->count(option) > 0; }, args_);
    } else if (args_.dry_run && workload_path_.empty()) {
      throw UsageError("--dry-run shows the plan of a search space or a workload and needs --space or --workload",
                       "add --space quick|default|exhaustive (or a space file), or --workload workload.json");
    }
    std::optional<LoadedWorkload> loaded;
    if (!workload_path_.empty()) {
      if (!resume_dir_.empty())
        throw UsageError("--resume cannot be combined with --workload", "re-run the workload sweep without --resume");
      loaded = load_workload_on_rank0(session, workload_path_);
    }
    // The NCCL module is looked for only when it may be used; `auto` falls back to MPI
    // when it cannot be loaded or sees no GPU.
    std::optional<runtime::GpuQuery> gpus;
    if (args_.backend == "nccl" || args_.backend == "auto")
      gpus = runtime::query_nccl_backend(comm, session.executable(), args_.backend == "nccl" || (space && !args_.dry_run));
    if (!resume_dir_.empty()) args_.output_dir = resume_dir_;
    // A dry run plans NCCL groups even where no GPU is visible (a login node).
    const bool nccl_usable = gpus.has_value() || args_.dry_run;
    // With a workload, the run settings alone until the job's shape is known: its shapes are the
    // point space, resolved once in plan_for_workload.
    const bool gpus_present = nccl_usable && (!gpus || gpus->device_count > 0);
    SweepPlan plan = loaded ? resolve_settings(args_, nccl_usable, gpus_present, overrides)
                            : resolve_sweep(args_, nccl_usable, gpus_present, overrides);
    if (space && plan.backend != BackendChoice::Nccl) {
      if (args_.backend == "mpi")
        throw UsageError("--space tunes NCCL configurations and needs the NCCL backend, not --backend mpi",
                         "drop --backend or use --backend nccl");
      throw EnvironmentError("--space tunes NCCL on GPUs, and no GPU is visible on this node",
                             "run it on the GPU nodes (check nvidia-smi and CUDA_VISIBLE_DEVICES), or add --dry-run to see the plan");
    }
    // Worker placement, once per job: planning and the sweep both use it.
    std::optional<runtime::NcclJob> placed;
    if (plan.backend == BackendChoice::Nccl && gpus) placed.emplace(supervisor_of(session), plan.nccl, gpus->device_count);
    if (loaded) {
      if (plan_for_workload(session, *loaded, plan, overrides, space, placed, nccl_usable, gpus_present)) return exit_code::ok;
    }
    if (plan.backend == BackendChoice::Mpi) check_root(plan, comm.size());  // NCCL: once its ranks are placed
    if (space && !resume_dir_.empty())
      throw UsageError("--resume cannot be combined with --space", "re-run the space sweep without --resume");
    // One MPI job, one set of library versions (NCCL's too when it measures), before measuring.
    check_job_consistency(session, plan.backend == BackendChoice::Nccl && gpus ? Versions{{"nccl", gpus->nccl_version}} : Versions{});
    Results topology_holder;
    attach_topology(session, topology_holder);  // rank 0 only; the space's NCCL_IB_HCA needs it
    std::optional<tuner::SpacePlan> planned;
    if (space) {
      planned = plan_space_for_job(session, *space, plan, placed, topology_holder);
      if (args_.dry_run) {
        agree_on_plan(comm, agreed_settings(plan, settings_parts(space, planned)));  // a dry run promises only what the run does
        if (comm.rank() == 0) std::printf("%s", tuner::format_plan(*planned).c_str());
        if (comm.rank() == 0) say_race_plan(race_budget_s(budget_s_, loaded.has_value()));
        if (comm.rank() == 0 && job_plan_)
          std::printf("%s", format_workload_plan(*loaded, job_shape_of(session, plan, placed), *job_plan_, nullptr).c_str());
        return exit_code::ok;
      }
      apply_space_plan(*planned, plan);
    }
    const SettingsParts parts = settings_parts(space, planned);
    agree_on_plan(comm, agreed_settings(plan, parts));
    return measure(session, plan, parts, gpus, placed, std::move(topology_holder.topology));
  }

 private:
  // --workload: the job's shapes this allocation reproduces replace the collectives, sizes and
  // types of the flags (and of the space); the plan's point space is resolved with them. True
  // when a dry run without a space printed the plan: the command is done.
  bool plan_for_workload(Session& session, const LoadedWorkload& loaded, SweepPlan& plan, const PlanOverrides& overrides,
                         std::optional<tuner::SearchSpace>& space, const std::optional<runtime::NcclJob>& placed, bool nccl_usable,
                         bool gpus_present) {
    RankComm& comm = session.comm();
    const JobShape job = job_shape_of(session, plan, placed);
    // A space's values, narrowed to the job's collectives, sizes and types.
    const auto space_for_job = [&](const workload::WorkloadPlan& p) {
      if (!space) return overrides;
      PointSpace shapes;
      shapes.points = p.shapes();
      space->collectives = collectives_of(shapes);
      space->sizes = SizeSequence{};
      space->sizes.list = sizes_of(shapes);
      space->dtypes = dtypes_of(shapes);
      return space_overrides(
          *space, [&](const std::string& option) { return cmd_->count(option) > 0; }, args_);
    };
    JobWorkload planned = plan_workload_for(session, loaded, job, {static_cast<std::size_t>(workload_sizes_), workload_rare_}, args_,
                                            nccl_usable, gpus_present, space_for_job);
    job_plan_ = std::move(planned.plan);
    job_settings_ = std::move(planned.settings);
    plan = std::move(planned.sweep);
    if (!args_.dry_run || space) return false;
    agree_on_plan(comm, agreed_settings(plan, settings_parts(space, std::nullopt)));
    if (comm.rank() == 0) std::printf("%s", format_workload_plan(loaded, job, *job_plan_, &plan).c_str());
    return true;
  }

  // meta.settings beside the plan: the space's record and the workload's, when there are.
  SettingsParts settings_parts(const std::optional<tuner::SearchSpace>& space, const std::optional<tuner::SpacePlan>& planned) const {
    SettingsParts parts;
    if (space && planned) {
      parts.space = space_settings(*space, *planned);
      parts.space_name = space->name;
    }
    parts.workload = job_settings_;
    parts.job = job_plan_ ? &*job_plan_ : nullptr;
    return parts;
  }

  // Everything from the output files to the last line: the plan is settled.
  int measure(Session& session, const SweepPlan& plan, const SettingsParts& parts, const std::optional<runtime::GpuQuery>& gpus,
              const std::optional<runtime::NcclJob>& placed, ResultSection topology) {
    RankComm& comm = session.comm();
    Results initial;
    initial.meta = sweep_meta(session, plan, gpus, parts);  // meta.settings as agree_on_plan compared it
    std::optional<ResumeState> resume;
    if (!resume_dir_.empty()) {
      if (plan.backend != BackendChoice::Mpi)
        throw UsageError("--resume works with the MPI backend only in this build", "re-run the NCCL sweep without --resume");
      const PlannedPoints planned = planned_points(runtime::enumerate_points(plan, comm.size()), {"mpi", "default"});
      resume = ResumeState::load(comm, resume_dir_, initial.meta.settings.json(), planned, comm.size(),
                                 static_cast<int>(initial.meta.hostnames.size()));
      initial = resume->carry_over(std::move(initial.meta), {{"mpi", "default"}});
    }
    const ExistingResults existing = resume ? ExistingResults::Resume : force_ ? ExistingResults::Replace : ExistingResults::Refuse;
    JobFiles files = open_job_files(session, plan.output_dir, existing, csv_path_, /*resumable=*/true);
    if (resume && comm.rank() == 0) std::printf("# resuming %s: %zu points already measured\n", resume_dir_.c_str(), resume->measured_count());
    initial.topology = std::move(topology);
    attach_network_probe(session, initial, probe_);
    JobRun run;
    run.initial = std::move(initial);
    run.files = std::move(files);
    run.table = true;
    const double budget_s = race_budget_s(budget_s_, !parts.workload.is_null());
    RaceInputs race{budget_s, space_, run.initial.meta, [&](const Results& r) { return unconfirmed_options(r, plan); }};
    run.measure = [&](Reporter& reporters) {
      if (plan.backend == BackendChoice::Nccl && space_ && budget_s > 0) return run_race(session, *placed, plan, reporters, race);
      return plan.backend == BackendChoice::Nccl ? placed->run(plan, reporters) : run_mpi_sweep(session, plan, reporters, resume ? &*resume : nullptr);
    };
    // An NCCL sweep that tunes confirms its proposed rules before writing the profile
    // (app/sweep/confirm_round.hpp): rank 0 keeps the results for the round.
    const bool confirming = plan.backend == BackendChoice::Nccl && !no_tune_ && confirm_.rounds > 0 && plan.nccl.test_shared_gpu == 0;
    std::optional<Results> measured;
    std::optional<runtime::SweepOutcome> outcome_kept;
    run.conclude = [&](const Results& results, const runtime::SweepOutcome& outcome) {
      if (!confirming) return say_complete(session, plan, results, outcome);
      measured = results;
      outcome_kept = outcome;
      return say_measured(plan, results);
    };
    run.interrupted = [&](int signal, const std::string& path) { say_interrupted(session, plan, signal, path); };
    const int rc = run_job(session, std::move(run));
    if (!confirming || rc != exit_code::ok) return rc;
    std::optional<tuner::TuneOutputs> proposed;
    if (measured) proposed = propose(*measured, plan);
    const ConfirmRound round =
        run_confirm_round(session, *placed, plan, gpus, measured ? *measured : Results{}, proposed ? &*proposed : nullptr, confirm_);
    return agreed_exit_status(comm, comm.rank() == 0, [&] {
      if (round.status == exit_code::ok) return say_outputs(session, plan, *measured, *outcome_kept, round.confirmations);
      std::fprintf(stderr,
                   "cctune: no profile written: the confirmation round ended with status %d; `cctune tune %s` writes it from the sweep\n",
                   round.status, text::terminal_text(text::shell_word(results_path_of(plan))).c_str());
      return round.status;
    });
  }

  // Tune's options for results of this sweep before its confirmation round (the race's, propose's).
  static tuner::TuneOptions unconfirmed_options(const Results& results, const SweepPlan& plan) {
    return tune_options_for(results, results_path_of(plan), {.confirmations = std::vector<tuner::RuleConfirmation>{}});
  }

  static std::string results_path_of(const SweepPlan& plan) { return (std::filesystem::path(plan.output_dir) / "results.json").string(); }

  // Rank 0: what tune makes of the sweep without a confirmation round; nullopt when it cannot tune.
  static std::optional<tuner::TuneOutputs> propose(const Results& results, const SweepPlan& plan) {
    if (!tuner::has_nccl_measurements(results) || !test_mode_of(results).empty()) return std::nullopt;
    try {
      return tuner::tune_results(results, unconfirmed_options(results, plan));
    } catch (const Error&) {
      return std::nullopt;  // say_outputs says why, as without a round
    }
  }

  void say_interrupted(Session& session, const SweepPlan& plan, int signal, const std::string& path) const {
    std::fprintf(stderr, "cctune: interrupted by signal %d; results so far are in %s\n", signal, path.c_str());
    if (!csv_path_.empty())
      std::fprintf(stderr, "cctune: the points measured so far are in %s (a resumed sweep writes all of them to a new --csv FILE)\n",
                   csv_path_.c_str());
    // --resume continues MPI sweeps only (it is refused above for NCCL): suggest it only there.
    if (plan.backend == BackendChoice::Mpi)
      std::fprintf(stderr, "cctune: to continue: %s\n", resume_command(session.argv(), plan.output_dir).c_str());
    else
      std::fprintf(stderr, "cctune: NCCL sweeps cannot be resumed in this build; run the sweep again to measure everything\n");
  }

  // Rank 0, after a complete sweep: the files derived from the results, and where they are;
  // returns the exit status.
  int say_complete(Session& session, const SweepPlan& plan, const Results& results, const runtime::SweepOutcome& outcome) const {
    say_measured(plan, results);
    return say_outputs(session, plan, results, outcome, {});
  }

  // Rank 0: where the measurements are (results, csv, metrics) and who straggled.
  int say_measured(const SweepPlan& plan, const Results& results) const {
    const std::string path = results_path_of(plan);
    for (const auto& line : straggler_lines(results)) std::printf("# %s\n", text::terminal_text(line).c_str());  // host names
    std::printf("# results: %s\n", std::filesystem::absolute(path).c_str());
    if (!csv_path_.empty()) std::printf("# csv: %s\n", std::filesystem::absolute(csv_path_).c_str());
    if (!prom_path_.empty()) {
      metrics::write_metrics(prom_path_, metrics::sweep_metrics(results));
      std::printf("# metrics: %s\n", text::terminal_text(std::filesystem::absolute(prom_path_).string()).c_str());
    }
    return exit_code::ok;
  }

  // Rank 0: the profile, env file and report derived from the results with this sweep's confirmation
  // round, `confirmed` (empty when none ran: an earlier sweep's record in the folder is not this one's); the exit status.
  int say_outputs(Session& session, const SweepPlan& plan, const Results& results, const runtime::SweepOutcome& outcome,
                  const std::vector<tuner::RuleConfirmation>& confirmed) const {
    const std::string path = results_path_of(plan);
    const auto options = [&] { return tune_options_for(results, path, {.confirmations = confirmed}); };
    const DerivedOutputs more = write_derived_outputs(results, plan.output_dir, options, session.executable(), !no_tune_);
    for (const auto& note : more.notes) std::printf("# %s\n", text::terminal_text(note).c_str());
    if (!more.profile.empty()) {
      std::printf("# profile: %s\n# env file: %s\n# NCCL example-tuner CSV: %s\n", more.profile.c_str(), more.env_file.c_str(),
                  more.tuner_conf.c_str());
      std::printf("# to use it: set -a; . %s; set +a\n", text::shell_word(more.env_file).c_str());
    }
    std::printf("# report: %s\n", more.report.c_str());
    if (outcome.failed_groups > 0)
      std::fprintf(stderr, "cctune: %d of %d config groups failed; their reasons are in %s\n", outcome.failed_groups, outcome.groups,
                   path.c_str());
    return outcome.failed_groups > 0 ? exit_code::failure : exit_code::ok;
  }

  SweepArgs args_;
  std::string resume_dir_;  // --resume DIR
  std::string csv_path_;    // --csv FILE
  std::string prom_path_;   // --prometheus FILE
  std::string probe_ = "auto";
  bool no_tune_ = false;
  ConfirmSettings confirm_;
  bool force_ = false;  // --force: replace an existing results.json
  double budget_s_ = -1;                       // --budget-s; negative: not typed (race_budget_s)
  const tuner::SearchSpace* space_ = nullptr;  // the loaded --space, while run() holds it
  std::string workload_path_;  // --workload FILE
  int workload_sizes_ = static_cast<int>(workload::default_workload_sizes);
  bool workload_rare_ = false;
  std::optional<workload::WorkloadPlan> job_plan_;  // planned from --workload
  nlohmann::json job_settings_;                     // meta.settings.workload; null without --workload
};

}  // namespace

std::unique_ptr<Command> make_sweep_command() { return std::make_unique<SweepCommand>(); }

}  // namespace cctune::app
