// `cctune __worker`: the hidden subcommand a supervisor starts once per GPU and config
// group (and once with --query to learn the GPUs and NCCL version). It never starts MPI:
// it is spawned without the launcher's variables and talks only to its supervisor.
#include "app/cli/command.hpp"
#include "app/commands/commands_list.hpp"
#include "app/cli/session.hpp"
#include "runtime/worker_main.hpp"

namespace cctune::app {
namespace {

struct WorkerArgs {
  bool query = false;
  bool versions = false;
  std::string log;
};

void add_worker_options(CLI::App& cmd, WorkerArgs& a) {
  cmd.group("");  // hidden from --help
  cmd.add_flag("--query", a.query, "print the GPU count and NCCL/CUDA versions as JSON and exit");
  cmd.add_flag("--versions", a.versions, "print the NCCL and CUDA versions as JSON (no GPU needed) and exit");
  cmd.add_option("--log", a.log, "where the supervisor sends this worker's output (informational)");
}

int run_worker(Session& session, WorkerArgs& a) {
  if (a.versions) return runtime::run_worker_versions(session.executable());
  return a.query ? runtime::run_worker_query(session.executable())
                 : runtime::run_worker(session.executable(), session.seams().worker_before_point);
}

}  // namespace

std::unique_ptr<Command> make_worker_command() {
  return make_command<WorkerArgs>({"__worker", "internal: a GPU worker of `cctune sweep --backend nccl`", false}, add_worker_options,
                                  run_worker);
}

}  // namespace cctune::app
