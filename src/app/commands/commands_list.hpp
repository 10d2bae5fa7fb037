#pragma once
// One factory per subcommand; each is defined in its own commands/<name>_command.cpp.
#include <memory>

#include "app/cli/command.hpp"

namespace cctune::app {

std::unique_ptr<Command> make_sweep_command();
std::unique_ptr<Command> make_tune_command();
std::unique_ptr<Command> make_compare_command();
std::unique_ptr<Command> make_report_command();
std::unique_ptr<Command> make_probe_command();
std::unique_ptr<Command> make_topo_command();
std::unique_ptr<Command> make_worker_command();
std::unique_ptr<Command> make_verify_command();
std::unique_ptr<Command> make_diagnose_command();
std::unique_ptr<Command> make_workload_command();
std::unique_ptr<Command> make_replay_command();

}  // namespace cctune::app
