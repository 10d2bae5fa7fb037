#include "app/cli/command.hpp"
#include "app/commands/commands_list.hpp"

namespace cctune::app {

std::vector<std::unique_ptr<Command>> make_commands() {
  std::vector<std::unique_ptr<Command>> c;
  c.push_back(make_sweep_command());
  c.push_back(make_tune_command());
  c.push_back(make_compare_command());
  c.push_back(make_report_command());
  c.push_back(make_probe_command());
  c.push_back(make_topo_command());
  c.push_back(make_worker_command());
  c.push_back(make_verify_command());
  c.push_back(make_diagnose_command());
  c.push_back(make_workload_command());
  c.push_back(make_replay_command());
  return c;
}

}  // namespace cctune::app
