#include "tuner/selection/do_no_harm.hpp"

#include <array>
#include <cstdio>
#include <string_view>

namespace cctune::tuner {

bool takes_sms(const std::map<std::string, std::string>& env) {
  // NCCL's knobs for the thread blocks its kernels launch: per collective (CTAs, channels), per
  // point-to-point peer, and threads per block. Lowering them frees SMs, raising them takes
  // more: either way the job's compute feels it, and only the job can say by how much.
  static constexpr std::array<std::string_view, 7> kSmSettings = {"NCCL_MIN_CTAS",      "NCCL_MAX_CTAS",          "NCCL_MIN_NCHANNELS",
                                                                  "NCCL_MAX_NCHANNELS", "NCCL_MIN_P2P_NCHANNELS", "NCCL_MAX_P2P_NCHANNELS",
                                                                  "NCCL_NTHREADS"};
  for (const std::string_view key : kSmSettings)
    if (env.count(std::string(key))) return true;
  return false;
}

bool sm_cost_unmeasured(const GroupScore& g) { return takes_sms(g.env) && !g.overlap; }

std::optional<WithheldGroup> withheld(const GroupScore& best, bool weighted, double step_us) {
  WithheldGroup w{best.group, best.job_speedup, best.speedup_low, best.speedup_high, {}};
  if (sm_cost_unmeasured(best))
    w.why =
        "it sets the SMs NCCL's kernels take, which the job's compute shares; a sweep of collectives alone cannot see what that "
        "costs the job. Race it on the job: cctune tune RESULTS --job -- <your job>";
  else if (weighted && !(step_us > 0))
    w.why =
        "the job's capture has no step time, so nothing says how much of the saving the step would show (its compute may hide "
        "it all). Capture with step times (CCTUNE_WORKLOAD_STEP_TIMES=1), or race it on the job: cctune tune RESULTS --job -- "
        "<your job>";
  else
    return std::nullopt;
  return w;
}

std::vector<std::string> overlap_notes(const std::vector<GroupScore>& groups, const std::string& chosen, double min_gain) {
  std::vector<std::string> notes;
  char line[512];
  for (const GroupScore& g : groups) {
    if (!g.eligible || !g.overlap || !takes_sms(g.env)) continue;
    if (g.group == chosen)
      std::snprintf(line, sizeof line,
                    "group %s takes SMs and was measured beside compute (--overlap): deployed, as it wins on collective + compute "
                    "(x%.3f; collective alone x%.3f)",
                    g.group.c_str(), g.job_speedup, g.collective_speedup);
    else if (g.collective_speedup >= 1.0 + min_gain && !g.job_beyond_noise)
      std::snprintf(line, sizeof line,
                    "group %s wins on collective time alone (x%.3f) but not on collective + compute (x%.3f [%.3f, %.3f], measured "
                    "with --overlap): the SMs it takes cost the job's compute more than it saves; not deployed",
                    g.group.c_str(), g.collective_speedup, g.job_speedup, g.speedup_low, g.speedup_high);
    else
      continue;
    notes.emplace_back(line);
  }
  return notes;
}

}  // namespace cctune::tuner
