#include "tuner/selection/undecided.hpp"

#include <algorithm>

namespace cctune::tuner {

UndecidedRace undecided_race(const Results& results, const std::vector<GroupScore>& groups, const std::string& chosen,
                             const std::string& reference, double min_gain) {
  UndecidedRace race;
  for (const GroupScore& g : groups)
    if (g.eligible && g.group != chosen && g.job_speedup >= 1.0 + min_gain && g.speedup_low < 1.0 + min_gain)
      race.contenders.push_back({g.group, g.job_speedup, g.speedup_low, g.speedup_high});
  std::sort(race.contenders.begin(), race.contenders.end(), [](const auto& a, const auto& b) { return a.speedup > b.speedup; });
  if (race.contenders.empty()) return race;
  const auto in_race = [&](const std::string& group) {
    return group == reference ||
           std::any_of(race.contenders.begin(), race.contenders.end(), [&](const auto& c) { return c.group == group; });
  };
  for (const RunResult& run : results.runs) {
    if (run.backend != "nccl" || !in_race(run.group)) continue;
    for (const PointResult& p : run.points) {
      if (p.status != PointStatus::Ok) continue;
      race.fewest_iterations = race.fewest_iterations == 0 ? p.iterations : std::min(race.fewest_iterations, p.iterations);
      race.time_capped = race.time_capped || p.stop_reason == StopReason::Time;
    }
  }
  return race;
}

}  // namespace cctune::tuner
