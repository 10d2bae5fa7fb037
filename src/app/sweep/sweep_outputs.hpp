#pragma once
// What `cctune sweep` adds around the measurements: the cluster topology and the network
// probe before measuring, and, once results are complete, the tuning profile and the HTML
// report beside results.json. Each step that cannot apply (no NCCL points to tune, a single
// node for the probe) is skipped with a one-line note, never an error.
#include <functional>
#include <string>
#include <vector>

#include "app/cli/session.hpp"
#include "core/results.hpp"
#include "tuner/selection/selection.hpp"

namespace cctune::app {

// Collective: every rank calls them; rank 0 stores the section in `results`.
void attach_topology(Session& session, Results& results);
// `kind` is auto|ib|tcp|none; auto probes only when the job spans several hosts.
void attach_network_probe(Session& session, Results& results, const std::string& kind);

struct DerivedOutputs {
  std::string profile, env_file, tuner_conf, report;  // empty when not written
  std::vector<std::string> notes;                     // why a step was skipped
};

// Rank 0 only: profile.json, nccl.env and nccl_tuner.conf (when the results hold NCCL
// points to tune from) and report.html, all in `dir`. `tune_options` makes the options the
// profile is tuned with; the command passes app/tune's tune_options_for, so the sweep's profile
// is `cctune tune`'s and this folder does not include tune (which reads the sweep's records).
// A UsageError from it skips the profile with a note.
DerivedOutputs write_derived_outputs(const Results& results, const std::string& dir,
                                     const std::function<tuner::TuneOptions()>& tune_options, const std::string& executable, bool tune);

// One line per rank named a straggler in a run (diagnose/straggler.hpp): "straggler: rank 3
// (host n2, GPU 1) arrives last in 92 % of operations at 14 of 16 points", the group added
// when the results hold several runs. Empty for a healthy sweep.
std::vector<std::string> straggler_lines(const Results& results);

}  // namespace cctune::app
