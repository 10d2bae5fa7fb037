#pragma once
// `cctune replay`'s result: the step's time per round under NCCL's defaults and, with a
// profile, under the profile; their comparison by verify's paired-rounds analysis
// (app/ab/ab_analysis.hpp); the line it prints and its replay.json (docs/WORKLOAD.md
// "Replay").
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/ab/ab_analysis.hpp"
#include "app/ab/ab_document.hpp"
#include "core/results.hpp"
#include "workload/replay_plan.hpp"

namespace cctune::app {

// Step times in us, one per round (the median step of that round's run; 0 where the run
// failed), and why runs failed.
struct ReplayTimes {
  std::vector<double> default_us;
  std::vector<double> profile_us;  // empty without a profile
  std::vector<std::string> failures;
  int nranks = 0, nnodes = 0;
};

// Reads the runs labelled "default" and "profile" in order: the n-th run of each is round n.
ReplayTimes collect_replay_times(const Results& results, int rounds, bool with_profile);

struct ReplayVerdict {
  double default_ms = 0, profile_ms = 0;
  // Without a profile: the distribution-free interval of the defaults' median (ms); with one,
  // the paired analysis of default/profile (speedup > 1: the profile is faster).
  MedianInterval default_interval;
  AbRow ab;
  bool compared = false;  // a profile was measured and at least one round pairs
};
ReplayVerdict judge_replay(const ReplayTimes& t, const AbOptions& options);

// "step time: NCCL defaults 1.234 ms (95% CI [...] ms over rounds)" alone, or with a profile the
// A/B family's verdict line (ab_row.hpp) after "step time: ".
std::string step_time_line(const ReplayVerdict& v, bool with_profile);

// cctune.replay/1, an A/B document (ab_document.hpp): the step as issued (a group's members carry
// "group", their index, and the group's "repeats"), the per-round times and, with a profile,
// the verdict under "step".
AbDocument replay_document(const workload::ReplayStep& step, const ReplayTimes& t, const ReplayVerdict& v, double tolerance,
                           bool with_profile);

}  // namespace cctune::app
