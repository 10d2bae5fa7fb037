#pragma once
// The sweep's confirmation round (issue 35, docs/TUNING.md "Confirmation round"): before an
// NCCL sweep writes its profile, the sizes where tune proposes a rule are measured again,
// NCCL's defaults against the proposed profile loaded by the production plugin, in interleaved
// rounds on the job's own placement (verify's A/B, ab_groups.hpp). A rule is written only where
// that round reads it faster: on 4xH100 four rules at 8-128 B that the sweep measured up to
// 1.35x faster read "same" in verify.
// Its record, <sweep>/confirm/confirmation.json (schema cctune.confirmation/1), is what a later
// `cctune tune` reads beside the sweep's results.json, so the sweep's profile and tune's agree;
// the sweep itself hands the same readings to its tune in memory.
#include <optional>
#include <string>
#include <vector>

#include "app/cli/session.hpp"
#include "core/error.hpp"
#include "core/results.hpp"
#include "runtime/nccl_job.hpp"
#include "runtime/query.hpp"
#include "tuner/selection/selection.hpp"

namespace cctune::app {

struct ConfirmSettings {
  int rounds = 6;          // --confirm-rounds; 0: no round
  double tolerance = 0.02; // a rule reads faster when its whole interval is above 1 + tolerance
};

// The folder the round writes (its results.json, proposed-profile.json, confirmation.json).
std::string confirm_dir_of(const std::string& sweep_output_dir);

// What the round gives the sweep: the exit status of its run (0 also when there was nothing
// to confirm, or when the proposed profile cannot reach every node: then rank 0 says so and the
// profile stays as tuned), and on rank 0 the readings it wrote to confirmation.json, which the
// sweep's own tune takes from here (TuneChoices::confirmations) rather than from the file.
struct ConfirmRound {
  int status = exit_code::ok;
  std::vector<tuner::RuleConfirmation> confirmations;
};

// Collective. `proposed` (rank 0's; ignored elsewhere) is what tune made of the sweep's
// `results` without a round. When it holds rules, their sizes are measured as described above
// and rank 0 writes confirmation.json.
ConfirmRound run_confirm_round(Session& session, const runtime::NcclJob& job, const runtime::SweepPlan& sweep_plan,
                               const std::optional<runtime::GpuQuery>& gpus, const Results& results, const tuner::TuneOutputs* proposed,
                               const ConfirmSettings& settings);

// The readings recorded beside `results_path` (<dir>/confirm/confirmation.json) for the sweep
// that wrote `results` (its start time and argv must match: a confirmation of an earlier sweep in
// the folder is ignored); empty when there is none. Throws UsageError naming the file when it is
// malformed.
std::vector<tuner::RuleConfirmation> read_confirmations(const std::string& results_path, const Results& results);

}  // namespace cctune::app
