// `cctune __worker`: the hidden subcommand a supervisor starts once per GPU and config
// group (and once with --query to learn the GPUs and NCCL version). It never starts MPI:
// it is spawned without the launcher's variables and talks only to its supervisor.
#include "app/cli/command.hpp"
#include "app/commands/commands_list.hpp"
#include "app/cli/session.hpp"
#include "runtime/worker_main.hpp"

namespace cctune::app {
namespace {

class WorkerCommand : public Command {
 public:
  void setup(CLI::App& parent) override {
    cmd_ = parent.add_subcommand("__worker", "internal: a GPU worker of `cctune sweep --backend nccl`");
    cmd_->group("");  // hidden from --help
    cmd_->add_flag("--query", query_, "print the GPU count and NCCL/CUDA versions as JSON and exit");
    cmd_->add_flag("--versions", versions_, "print the NCCL and CUDA versions as JSON (no GPU needed) and exit");
    cmd_->add_option("--log", log_, "where the supervisor sends this worker's output (informational)");
  }
  bool selected() const override { return cmd_->parsed(); }
  bool needs_mpi() const override { return false; }
  int run(Session& session) override {
    if (versions_) return runtime::run_worker_versions(session.executable());
    return query_ ? runtime::run_worker_query(session.executable()) : runtime::run_worker(session.executable(), session.seams().worker_before_point);
  }

 private:
  CLI::App* cmd_ = nullptr;
  bool query_ = false;
  bool versions_ = false;
  std::string log_;
};

}  // namespace

std::unique_ptr<Command> make_worker_command() { return std::make_unique<WorkerCommand>(); }

}  // namespace cctune::app
