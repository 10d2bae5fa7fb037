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
#include "app/run_meta.hpp"
#include "app/session.hpp"
#include "app/signals.hpp"
#include "app/sweep_options.hpp"
#include "core/error.hpp"
#include "core/files.hpp"

namespace cctune::app {
namespace {

class SweepCommand : public Command {
 public:
  void setup(CLI::App& parent) override {
    cmd_ = parent.add_subcommand("sweep", "measure collectives over sizes and configurations; write results.json");
    add_sweep_options(*cmd_, args_);
  }
  bool selected() const override { return cmd_->parsed(); }

  int run(Session& session) override {
    install_stop_handlers();
    RankComm& comm = session.comm();
    // The NCCL module is looked for only when it may be used; `auto` falls back to MPI
    // when it cannot be loaded or sees no GPU.
    std::optional<runtime::GpuQuery> gpus;
    if (args_.backend == "nccl" || args_.backend == "auto") gpus = query_nccl_backend(session, args_.backend == "nccl");
    const SweepPlan plan = resolve_sweep(args_, /*nccl_built=*/gpus.has_value(), /*gpus_present=*/gpus && gpus->device_count > 0);
    const std::string path = (std::filesystem::path(plan.output_dir) / "results.json").string();
    agree_on_errors(comm, [&] {
      if (comm.rank() == 0) ensure_writable_directory(plan.output_dir);
    });
    Results initial;
    initial.meta = collect_meta(session);
    initial.meta.settings = to_json(plan);
    if (plan.backend == BackendChoice::Nccl) record_versions(*gpus, initial.meta);
    std::unique_ptr<ResultsSink> sink;
    if (comm.rank() == 0) sink = std::make_unique<ResultsSink>(initial, path, true);

    NcclSweepOutcome nccl;
    const int sig = plan.backend == BackendChoice::Nccl ? (nccl = run_nccl_sweep(session, plan, *gpus, sink.get())).stop_signal
                                                        : run_mpi_sweep(session, plan, sink.get());
    if (sig != 0) {
      if (sink) {
        sink->finish("interrupted");
        std::fprintf(stderr, "cctune: interrupted by signal %d; results so far are in %s\n", sig, path.c_str());
      }
      return sig == 2 ? exit_code::interrupted_sigint : exit_code::interrupted_sigterm;
    }
    if (sink) {
      sink->finish("complete");
      std::printf("# results: %s\n", std::filesystem::absolute(path).c_str());
      if (nccl.failed_groups > 0)
        std::fprintf(stderr, "cctune: %d of %d config groups failed; their reasons are in %s\n", nccl.failed_groups, nccl.groups,
                     path.c_str());
    }
    return nccl.failed_groups > 0 ? exit_code::failure : exit_code::ok;
  }

 private:
  CLI::App* cmd_ = nullptr;
  SweepArgs args_;
};

}  // namespace

std::unique_ptr<Command> make_sweep_command() { return std::make_unique<SweepCommand>(); }

}  // namespace cctune::app
