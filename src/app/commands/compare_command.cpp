// `cctune compare A.json B.json ...`: runs side by side per collective and size, with
// ratios to the first run; tuned points against NCCL's defaults. Text, --csv or --json.
#include <fstream>
#include <iostream>
#include <sstream>

#include "app/cli/command.hpp"
#include "app/commands/commands_list.hpp"
#include "app/report/matching.hpp"
#include "app/report/printers.hpp"
#include "app/report/report_files.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/text.hpp"

namespace cctune::app {
namespace {

class CompareCommand : public Command {
 public:
  void setup(CLI::App& parent) override {
    cmd_ = parent.add_subcommand("compare", "compare results files side by side (busbw, time, ratios to the first)");
    cmd_->add_option("results", paths_, "results.json files (or sweep output directories); the first is the reference")
        ->required()
        ->check(CLI::ExistingPath);
    cmd_->add_option("--labels", labels_, "comma-separated names, one per file or one per config group")->delimiter(',');
    auto* csv = cmd_->add_flag("--csv", csv_, "print CSV (one row per table, size and run)");
    cmd_->add_flag("--json", json_, "print JSON (schema cctune.compare/1)")->excludes(csv);
    cmd_->add_option("-o,--output", output_, "write to this file instead of standard output");
    cmd_->add_flag("--strict", strict_, "fail (exit 2) when the runs differ in ranks, nodes, versions, settings or sizes");
  }
  bool selected() const override { return cmd_->parsed(); }
  bool needs_mpi() const override { return false; }

  int run(Session&) override {
    const auto comparison = report::build_comparison(report::load_inputs(report::resolve_results_paths(paths_)), {labels_, false});
    if (strict_ && !comparison.mismatches.empty())
      throw UsageError("the runs differ: " + comparison.mismatches.front() +
                           (comparison.mismatches.size() > 1 ? " (and " + std::to_string(comparison.mismatches.size() - 1) + " more)" : ""),
                       "compare runs of the same settings, or drop --strict to see the differences listed");
    std::ostringstream out;
    if (json_) out << text::dump_json(report::to_json(comparison), 1) << "\n";
    else if (csv_) report::print_csv(out, comparison);
    else report::print_text(out, comparison);
    if (output_.empty()) std::cout << out.str() << std::flush;
    else write_file_atomically(output_, out.str());
    return exit_code::ok;
  }

 private:
  CLI::App* cmd_ = nullptr;
  std::vector<std::string> paths_;
  std::vector<std::string> labels_;
  bool csv_ = false, json_ = false, strict_ = false;
  std::string output_;
};

}  // namespace

std::unique_ptr<Command> make_compare_command() { return std::make_unique<CompareCommand>(); }

}  // namespace cctune::app
