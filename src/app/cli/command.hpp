#pragma once
// A subcommand of the cctune CLI. Each lives in commands/<name>_command.cpp and is
// listed once in commands.cpp; main() parses, then runs the selected one.
#include <CLI/CLI.hpp>
#include <memory>
#include <vector>

namespace cctune::app {

class Session;

class Command {
 public:
  virtual ~Command() = default;
  // Adds the subcommand and its options to the parent app.
  virtual void setup(CLI::App& parent) = 0;
  // True when the user named this subcommand.
  virtual bool selected() const = 0;
  // Does the work; returns the exit code. Throws cctune::Error for failures.
  virtual int run(Session& session) = 0;
  // Commands that must not touch MPI (the NCCL worker) say so here.
  virtual bool needs_mpi() const { return true; }
};

std::vector<std::unique_ptr<Command>> make_commands();

}  // namespace cctune::app
