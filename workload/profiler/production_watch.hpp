#pragma once
// The production watch (docs/WORKLOAD.md): a communicator's live busbw per shape against what
// the profile's sweep measured on this cluster: with the rule that covers the shape, or, where
// no rule does, with NCCL's defaults (the profile's measured_baseline), so a profile that
// changes nothing still watches every shape the sweep measured. A shape is reported when the
// busbw of its faster calls (the upper quartile: a rank's waits for late peers, which count in
// its GPU time, do not reach them; a slow link does) falls short of the sweep's by more than
// the outlier rule diagnose uses (core/outliers.hpp): beyond min_shortfall and beyond z_max
// robust deviations of the job's own calls. Pure: runs when the workload file is written,
// never on the launch path.
#include <string>
#include <vector>

#include "tuner/profile/profile.hpp"
#include "workload/workload.hpp"

namespace cctune::tuner {

// Findings for `comm` (its ranks[0] is this process's rank); a finding's live busbw is that of
// the shape's faster calls. Not judged: shapes without a GPU-time histogram of at least 8 calls; shapes a rule covers whose rule has no
// measurement near them; shapes no rule covers with no baseline near them for this collective,
// nranks and nnodes; and every shape outside the sizes measured. "Near": the measured size
// itself, or between two measured sizes with the smaller within a factor of 2.
std::vector<workload::WatchFinding> watch_communicator(const workload::Communicator& comm, const Profile& profile);

// The warning NCCL's log gets for a finding: what ran how fast, and what the sweep measured
// with which reference (the rule, or NCCL's defaults). Raw text: the caller makes it log-safe.
std::string watch_warning(const std::string& comm_id, const workload::WatchFinding& f, const std::string& workload_path);

}  // namespace cctune::tuner
