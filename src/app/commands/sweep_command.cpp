// `cctune sweep`: the main job. Resolves options, checks what can be checked before
// measuring, runs the backend's sweep, and leaves results.json in the output directory.
#include <cstdio>
#include <filesystem>

#include "app/agreement.hpp"
#include "app/command.hpp"
#include "app/commands/commands_list.hpp"
#include "app/mpi_sweep.hpp"
#include "app/nccl_sweep.hpp"
#include "app/results_sink.hpp"
#include "app/resume.hpp"
#include "app/run_meta.hpp"
#include "app/session.hpp"
#include "app/signals.hpp"
#include "app/sweep_options.hpp"
#include "app/sweep_outputs.hpp"
#include "app/version_check.hpp"
#include "core/error.hpp"
#include "core/files.hpp"

namespace cctune::app {
namespace {

class SweepCommand : public Command {
 public:
  void setup(CLI::App& parent) override {
    cmd_ = parent.add_subcommand("sweep", "measure collectives over sizes and configurations; write results.json");
    add_sweep_options(*cmd_, args_);
    cmd_->add_option("--probe", probe_, "network probe before measuring: auto (when ranks span hosts), ib, tcp, none")
        ->capture_default_str();
    cmd_->add_flag("--no-tune", no_tune_, "do not write profile.json/nccl.env/nccl_tuner.conf at the end");
    cmd_->add_option("--resume", resume_dir_, "continue the interrupted sweep in DIR: measure only the points its results.json lacks, write into DIR");
  }
  bool selected() const override { return cmd_->parsed(); }

  int run(Session& session) override {
    install_stop_handlers();
    RankComm& comm = session.comm();
    // The NCCL module is looked for only when it may be used; `auto` falls back to MPI
    // when it cannot be loaded or sees no GPU.
    std::optional<runtime::GpuQuery> gpus;
    if (args_.backend == "nccl" || args_.backend == "auto") gpus = query_nccl_backend(session, args_.backend == "nccl");
    if (!resume_dir_.empty()) args_.output_dir = resume_dir_;
    const SweepPlan plan = resolve_sweep(args_, /*nccl_built=*/gpus.has_value(), /*gpus_present=*/gpus && gpus->device_count > 0);
    check_job_consistency(session);  // one MPI job, one set of library versions, before measuring
    const std::string path = (std::filesystem::path(plan.output_dir) / "results.json").string();
    agree_on_errors(comm, [&] {
      if (comm.rank() == 0) ensure_writable_directory(plan.output_dir);
    });
    Results initial;
    initial.meta = collect_meta(session);
    initial.meta.settings = to_json(plan);
    if (plan.backend == BackendChoice::Nccl) record_versions(*gpus, initial.meta);
    std::optional<ResumeState> resume;
    if (!resume_dir_.empty()) {
      if (plan.backend != BackendChoice::Mpi)
        throw UsageError("--resume works with the MPI backend only in this build", "re-run the NCCL sweep without --resume");
      resume = ResumeState::load(comm, resume_dir_, initial.meta.settings, comm.size(), static_cast<int>(initial.meta.hostnames.size()));
      initial = resume->carry_over(std::move(initial.meta), {{"mpi", "default"}});
      if (comm.rank() == 0) std::printf("# resuming %s: %zu points already measured\n", resume_dir_.c_str(), resume->measured_count());
    }
    attach_topology(session, initial);
    attach_network_probe(session, initial, probe_);
    std::unique_ptr<ResultsSink> sink;
    if (comm.rank() == 0) sink = std::make_unique<ResultsSink>(initial, path, true);

    NcclSweepOutcome nccl;
    const int sig = plan.backend == BackendChoice::Nccl ? (nccl = run_nccl_sweep(session, plan, *gpus, sink.get())).stop_signal
                                                        : run_mpi_sweep(session, plan, sink.get(), resume ? &*resume : nullptr);
    if (sig != 0) {
      if (sink) {
        sink->finish("interrupted");
        std::fprintf(stderr, "cctune: interrupted by signal %d; results so far are in %s\n", sig, path.c_str());
        std::fprintf(stderr, "cctune: to continue: %s\n", resume_command(session.argv(), plan.output_dir).c_str());
      }
      return sig == 2 ? exit_code::interrupted_sigint : exit_code::interrupted_sigterm;
    }
    if (sink) {
      sink->finish("complete");
      std::printf("# results: %s\n", std::filesystem::absolute(path).c_str());
      const DerivedOutputs more = write_derived_outputs(sink->results(), plan.output_dir, path, session.executable(), !no_tune_);
      for (const auto& note : more.notes) std::printf("# %s\n", note.c_str());
      if (!more.profile.empty()) {
        std::printf("# profile: %s\n# env file: %s\n# NCCL example-tuner CSV: %s\n", more.profile.c_str(), more.env_file.c_str(),
                    more.tuner_conf.c_str());
        std::printf("# to use it: set -a; . %s; set +a\n", more.env_file.c_str());
      }
      std::printf("# report: %s\n", more.report.c_str());
      if (nccl.failed_groups > 0)
        std::fprintf(stderr, "cctune: %d of %d config groups failed; their reasons are in %s\n", nccl.failed_groups, nccl.groups,
                     path.c_str());
    }
    return nccl.failed_groups > 0 ? exit_code::failure : exit_code::ok;
  }

 private:
  CLI::App* cmd_ = nullptr;
  SweepArgs args_;
  std::string resume_dir_;  // --resume DIR
  std::string probe_ = "auto";
  bool no_tune_ = false;
};

}  // namespace

std::unique_ptr<Command> make_sweep_command() { return std::make_unique<SweepCommand>(); }

}  // namespace cctune::app
