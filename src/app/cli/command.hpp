#pragma once
// A subcommand of the cctune CLI. Each lives in commands/<name>_command.cpp and is
// listed once in commands.cpp; main() parses, then runs the selected one. A command whose
// state is only its flags is two functions given to make_command; one with more state (sweep,
// verify...) derives from Command.
#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace cctune::app {

class Session;

class Command {
 public:
  virtual ~Command() = default;
  // Adds the subcommand (through add_to) and its options to the parent app.
  virtual void setup(CLI::App& parent) = 0;
  // True when the user named this subcommand.
  bool selected() const { return cmd_ != nullptr && cmd_->parsed(); }
  // Does the work; returns the exit code. Throws cctune::Error for failures.
  virtual int run(Session& session) = 0;
  // Commands that must not touch MPI (the NCCL worker) say so here.
  virtual bool needs_mpi() const { return true; }

 protected:
  // Adds this command's subcommand to `parent` and keeps it, so that `selected` and the
  // command's own look-ups (cmd_->count("-b")) read the one CLI11 parsed; every setup starts here.
  CLI::App& add_to(CLI::App& parent, const std::string& name, const std::string& description) {
    cmd_ = parent.add_subcommand(name, description);
    return *cmd_;
  }
  CLI::App* cmd_ = nullptr;  // set by add_to
};

// What the command line shows of a command made by make_command, and whether it starts MPI.
struct CommandInfo {
  std::string name;
  std::string description;
  bool needs_mpi = true;
};

// The one Command class of the commands whose state is their flags (`Args`): `add` registers
// the options into the args, `run` does the work with them.
template <class Args>
class ArgsCommand final : public Command {
 public:
  using Add = void (*)(CLI::App& cmd, Args& args);
  using Run = int (*)(Session& session, Args& args);
  ArgsCommand(CommandInfo info, Add add, Run run) : info_(std::move(info)), add_(add), run_(run) {}
  void setup(CLI::App& parent) override { add_(add_to(parent, info_.name, info_.description), args_); }
  int run(Session& session) override { return run_(session, args_); }
  bool needs_mpi() const override { return info_.needs_mpi; }

 private:
  CommandInfo info_;
  Add add_;
  Run run_;
  Args args_;
};

template <class Args>
std::unique_ptr<Command> make_command(CommandInfo info, typename ArgsCommand<Args>::Add add, typename ArgsCommand<Args>::Run run) {
  return std::make_unique<ArgsCommand<Args>>(std::move(info), add, run);
}

std::vector<std::unique_ptr<Command>> make_commands();

}  // namespace cctune::app
