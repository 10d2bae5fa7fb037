// `cctune compare A.json B.json ...`: runs side by side per collective and size, with
// ratios to the first run; tuned points against NCCL's defaults. Text, --csv or --json.
#include <fstream>
#include <iostream>
#include <sstream>

#include "app/cli/command.hpp"
#include "app/commands/commands_list.hpp"
#include "app/commands/runs_options.hpp"
#include "app/report/printers.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/text.hpp"

namespace cctune::app {
namespace {

struct CompareArgs {
  RunsArgs runs;
  bool csv = false, json = false, strict = false;
  std::string output;
};

void add_compare_options(CLI::App& cmd, CompareArgs& a) {
  add_runs_options(cmd, a.runs, "results.json files (or sweep output directories); the first is the reference");
  auto* csv = cmd.add_flag("--csv", a.csv, "print CSV (one row per table, size and run)");
  cmd.add_flag("--json", a.json, "print JSON (schema cctune.compare/1)")->excludes(csv);
  cmd.add_option("-o,--output", a.output, "write to this file instead of standard output");
  cmd.add_flag("--strict", a.strict, "fail (exit 2) when the runs differ in ranks, nodes, versions, settings or sizes");
}

int run_compare(Session&, CompareArgs& a) {
  const auto comparison = compare_runs(a.runs, false);
  if (a.strict && !comparison.mismatches.empty())
    throw UsageError("the runs differ: " + comparison.mismatches.front() +
                         (comparison.mismatches.size() > 1 ? " (and " + std::to_string(comparison.mismatches.size() - 1) + " more)" : ""),
                     "compare runs of the same settings, or drop --strict to see the differences listed");
  std::ostringstream out;
  if (a.json)
    out << text::dump_json(report::to_json(comparison), 1) << "\n";
  else if (a.csv)
    report::print_csv(out, comparison);
  else
    report::print_text(out, comparison);
  if (a.output.empty())
    std::cout << out.str() << std::flush;
  else
    write_file_atomically(a.output, out.str());
  return exit_code::ok;
}

}  // namespace

std::unique_ptr<Command> make_compare_command() {
  return make_command<CompareArgs>({"compare", "compare results files side by side (busbw, time, ratios to the first)", false},
                                   add_compare_options, run_compare);
}

}  // namespace cctune::app
