#include "app/sweep/sweep_outputs.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "app/report/report.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "diagnose/straggler.hpp"
#include "net/probe.hpp"
#include "runtime/signals.hpp"
#include "topology/cluster.hpp"
#include "topology/node_probe.hpp"
#include "topology/topology_section.hpp"
#include "tuner/export/outputs.hpp"
#include "tuner/selection/selection.hpp"

namespace cctune::app {

void attach_topology(Session& session, Results& results) {
  std::optional<topo::Topology> topology = topo::gather_cluster_topology(session.comm(), session.layout().hosts, topo::probe_local_node);
  if (session.rank() == 0 && topology) results.topology = topo::topology_section(std::move(*topology));
}

void attach_network_probe(Session& session, Results& results, const std::string& kind_text) {
  net::ProbeOptions options;
  options.kind = net::parse_probe_kind(kind_text);
  options.stop_requested = [] { return runtime::stop_signal() != 0; };  // F14: SIGTERM ends the probe, not only the sweep after it
  if (options.kind == net::ProbeKind::none) return;
  // The default on one host: nothing crosses a network, so nothing to say.
  if (options.kind == net::ProbeKind::auto_select && results.meta.hostnames.size() < 2) return;
  auto note = [&](const std::string& line) {
    if (session.rank() == 0) std::fprintf(stderr, "cctune: %s\n", text::terminal_text(line).c_str());
  };
  options.before_respond = session.seams().probe_before_respond;
  nlohmann::json section = net::run_network_probe(session.comm(), options, note, session.layout().hosts);
  if (session.rank() == 0) results.net = ResultSection(std::move(section));
}

DerivedOutputs write_derived_outputs(const Results& results, const std::string& dir,
                                     const std::function<tuner::TuneOptions()>& tune_options, const std::string& executable, bool tune) {
  DerivedOutputs out;
  if (!tune) {
    out.notes.push_back("tune: skipped (--no-tune)");
  } else if (!test_mode_of(results).empty()) {
    out.notes.push_back("tune: skipped: measured in the " + test_mode_of(results) +
                        " test mode (--test-shared-gpu), whose times are not performance; re-run without it for a profile");
  } else if (!tuner::has_nccl_measurements(results)) {
    const bool nccl_ran = std::any_of(results.runs.begin(), results.runs.end(), [](const RunResult& r) { return r.backend == "nccl"; });
    out.notes.push_back(nccl_ran ? "tune: skipped: no NCCL point was measured (every config group failed; reasons in results.json)"
                                 : "tune: skipped: profiles are for NCCL, and this run measured the MPI backend");
  } else {
    try {
      const tuner::TuneOptions options = tune_options();
      const tuner::TuneOutputs tuned = tuner::tune_results(results, options);
      const auto paths = tuner::write_tune_outputs(tuned, dir, tuner::find_tuner_plugin(executable));
      out.profile = paths.profile;
      out.env_file = paths.env_file;
      out.tuner_conf = paths.tuner_conf;
      std::printf("%s", tuner::format_tune_summary(tuned, false).c_str());
    } catch (const UsageError& e) {
      out.notes.push_back(std::string("tune: skipped: ") + e.what_only());
    }
  }
  const std::string report = (std::filesystem::path(dir) / "report.html").string();
  report::write_report(report, {results});
  out.report = std::filesystem::absolute(report).string();
  return out;
}

std::vector<std::string> straggler_lines(const Results& results) {
  std::vector<std::string> lines;
  for (const RunResult& run : results.runs)
    for (const auto& tally : diagnose::find_stragglers(run))
      lines.push_back("straggler: " + diagnose::describe(tally) +
                      (results.runs.size() > 1 ? " (" + run.backend + " group " + run.group + ")" : std::string()));
  return lines;
}

}  // namespace cctune::app
