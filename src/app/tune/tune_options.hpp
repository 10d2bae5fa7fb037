#pragma once
// The one place `tuner::TuneOptions` is built from results: `cctune tune` and the profile that
// `cctune sweep` writes at its end both come from here, so a sweep's own profile is the one
// `cctune tune` writes from the same results (the job's recorded weights included).
#include <optional>
#include <string>
#include <vector>

#include "core/results.hpp"
#include "tuner/selection/selection.hpp"

namespace cctune::app {

// What the user may choose about a tune; the rest comes from the results.
struct TuneChoices {
  double min_gain = tuner::TuneOptions{}.min_gain;
  double min_gain_us = tuner::TuneOptions{}.min_gain_us;
  bool extend_edges = tuner::TuneOptions{}.extend_edges;
  std::string workload_path{};  // --workload FILE: the job's weights from this file
  bool grid = false;            // --grid: every measured size alike, whatever the sweep recorded
  // The sweep's own confirmation round, in memory (empty: none ran); nullopt: the record beside
  // the results (<dir>/confirm/confirmation.json), as `cctune tune` reads it.
  std::optional<std::vector<tuner::RuleConfirmation>> confirmations{};
};

// Options for tuning `results` read from (or written to) `results_path`: provenance, the
// topology fingerprint, the space's name, and the job's weights (--workload, else what a
// `sweep --workload` recorded, else none). Throws UsageError for contradicting choices or a
// workload with no communicator of a measured shape.
tuner::TuneOptions tune_options_for(const Results& results, const std::string& results_path, const TuneChoices& choices);

}  // namespace cctune::app
