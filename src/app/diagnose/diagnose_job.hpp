#pragma once
// The stages of `cctune diagnose` in order, as the plan says (src/diagnose/plan.hpp), and what
// they measured gathered into one diagnosis document on world rank 0.
#include <optional>
#include <string>
#include <vector>

#include "app/diagnose/diagnosis_doc.hpp"
#include "app/diagnose/stage_runs.hpp"
#include "diagnose/plan.hpp"

namespace cctune::app::diagnose {

// One stage's sweeps as a results file (cctune.results/1): one run per node, pair or job.
struct StageFile {
  std::string name;  // intra_node, pairs, all_nodes
  Results results;
};

struct JobOutcome {
  DiagnosisDoc doc;                     // figures and stages; suspects not yet judged
  std::vector<StageFile> files;         // stages that ran sweeps
  nlohmann::json probes = nlohmann::json::array();  // the pair probes' net sections
  int stop_signal = 0;  // SIGINT/SIGTERM agreed by every rank: the stages after it did not run
};

// Collective over the world; the outcome is complete on world rank 0 only. `shape` (the
// cluster, sizes and nodes) is the document the figures are added to; `meta` and `topology`
// (results holding rank 0's gathered cluster topology, none elsewhere) head the stage files,
// and the topology gives each run its physical limit.
JobOutcome run_stages(const StageContext& ctx, const cctune::diagnose::DiagnosePlan& plan,
                      const std::optional<net::ProbeOptions>& probe, const Meta& meta, const Results& topology,
                      DiagnosisDoc shape);

}  // namespace cctune::app::diagnose
