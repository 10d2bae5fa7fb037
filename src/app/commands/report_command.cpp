// `cctune report RESULTS... -o report.html`: one self-contained HTML file with plots.
#include <cstdio>
#include <filesystem>

#include "app/cli/command.hpp"
#include "app/commands/commands_list.hpp"
#include "app/commands/runs_options.hpp"
#include "app/report/report.hpp"
#include "core/error.hpp"
#include "core/files.hpp"

namespace cctune::app {
namespace {

struct ReportArgs {
  RunsArgs runs;
  std::string output = "report.html";
};

void add_report_options(CLI::App& cmd, ReportArgs& a) {
  cmd.add_option("-o,--output", a.output, "the HTML file to write")->capture_default_str();
  add_runs_options(cmd, a.runs, "results.json files (or sweep output directories)");
}

int run_report(Session&, ReportArgs& a) {
  // Unlike compare, runs with nothing in common are shown side by side, not refused.
  const auto comparison = compare_runs(a.runs, true);
  write_file_atomically(a.output, report::render_report_html(comparison));
  std::printf("# report: %s\n", std::filesystem::absolute(a.output).c_str());
  return exit_code::ok;
}

}  // namespace

std::unique_ptr<Command> make_report_command() {
  return make_command<ReportArgs>({"report", "write a self-contained HTML report (plots, topology, network, failures)", false},
                                  add_report_options, run_report);
}

}  // namespace cctune::app
