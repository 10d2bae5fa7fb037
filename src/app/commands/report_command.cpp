// `cctune report RESULTS... -o report.html`: one self-contained HTML file with plots.
#include <cstdio>
#include <filesystem>

#include "app/cli/command.hpp"
#include "app/commands/commands_list.hpp"
#include "app/report/matching.hpp"
#include "app/report/report.hpp"
#include "app/report/report_files.hpp"
#include "core/error.hpp"
#include "core/files.hpp"

namespace cctune::app {
namespace {

class ReportCommand : public Command {
 public:
  void setup(CLI::App& parent) override {
    cmd_ = parent.add_subcommand("report", "write a self-contained HTML report (plots, topology, network, failures)");
    cmd_->add_option("results", paths_, "results.json files (or sweep output directories)")->required()->check(CLI::ExistingPath);
    cmd_->add_option("-o,--output", output_, "the HTML file to write")->capture_default_str();
    cmd_->add_option("--labels", labels_, "comma-separated names, one per file or one per config group")->delimiter(',');
  }
  bool selected() const override { return cmd_->parsed(); }
  bool needs_mpi() const override { return false; }

  int run(Session&) override {
    // Unlike compare, runs with nothing in common are shown side by side, not refused.
    const auto comparison = report::build_comparison(report::load_inputs(report::resolve_results_paths(paths_)), {labels_, true});
    write_file_atomically(output_, report::render_report_html(comparison));
    std::printf("# report: %s\n", std::filesystem::absolute(output_).c_str());
    return exit_code::ok;
  }

 private:
  CLI::App* cmd_ = nullptr;
  std::vector<std::string> paths_;
  std::vector<std::string> labels_;
  std::string output_ = "report.html";
};

}  // namespace

std::unique_ptr<Command> make_report_command() { return std::make_unique<ReportCommand>(); }

}  // namespace cctune::app
