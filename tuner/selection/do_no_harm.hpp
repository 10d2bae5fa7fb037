#pragma once
// Which process-level groups `cctune tune` does not deploy on collective time alone (issue 43,
// "do no harm"). A group that wins in a sweep of collectives can still slow the job:
//  - one that sets how many SMs NCCL's kernels take (CTAs, channels, threads) speeds the
//    collective and takes SMs from the compute DDP and FSDP overlap it with. On NVLink (2 x H200,
//    DDP) NCCL_MIN_CTAS=32 won 8.4 % of collective time and the job read 0.917 "slower" over 4
//    pairs; FSDP2 on 4 x H200 read 0.982. A sweep of collectives alone cannot see that cost;
//  - without the job's step time, nothing says how much of a collective's saving the step shows:
//    a job whose compute is at least its communication hides any saving of overlapped calls, and
//    a step of unknown length can be that long. So no saving is "beyond what the step could hide".
// Such a group is withheld (NCCL's defaults keep that role in the profile) and named, with how to
// show it on the job: `cctune tune --job` races it there. Pure; docs/TUNING.md "Do no harm".
//
// Measured beside compute (`sweep --overlap`, docs/TUNING.md "Collectives beside compute"), an
// SM-taking group's cost to the job's compute is in its score (collective + compute per call),
// so it is judged by that score like any group: deployed where it wins there beyond noise, and
// not where it wins on collective time alone (overlap_notes says which).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tuner/selection/group_score.hpp"

namespace cctune::tuner {

struct WithheldGroup {
  std::string group;
  double speedup = 0, low = 0, high = 0;  // its weighted collective speedup and interval
  std::string why;                        // one sentence, ends with what shows it on the job
};

// True when `env` sets a number of CTAs, channels or threads NCCL's kernels run with.
bool takes_sms(const std::map<std::string, std::string>& env);

// True when `g` takes SMs and its cost to the job's compute is not in its score (it was not
// measured beside compute, `g.overlap`): collective time alone cannot judge it.
bool sm_cost_unmeasured(const GroupScore& g);

// The reason `best` (the scores' choice, not the reference) is withheld, or nullopt when it may
// be deployed: it takes SMs and was not measured beside compute (best.overlap), or the job's
// weights are known but its step time is not
// (`weighted` and step_us == 0). A grid (no workload) is judged by collective time as it asks.
std::optional<WithheldGroup> withheld(const GroupScore& best, bool weighted, double step_us);

// What `--overlap` decided about SM-taking groups, one line each for tune's text: the chosen one
// deployed on collective + compute, and every other that wins on collective time alone (by
// min_gain) but not on collective + compute. Empty without overlap figures.
std::vector<std::string> overlap_notes(const std::vector<GroupScore>& groups, const std::string& chosen, double min_gain);

}  // namespace cctune::tuner
