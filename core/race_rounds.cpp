#include "core/race_rounds.hpp"

#include <map>
#include <tuple>
#include <utility>

namespace cctune {
namespace {

// What a point measured, whatever its numbers: a rerun of the same is a replacement.
bool same_point(const PointResult& a, const PointResult& b) {
  const auto tie = [](const PointResult& p) {
    return std::tie(p.collective, p.dtype, p.op, p.in_place, p.root, p.size_bytes, p.config.algo, p.config.proto, p.config.channels,
                    p.config.graph, p.impl);
  };
  return tie(a) == tie(b);
}

void fold_into(RunResult& into, RunResult&& later) {
  for (PointResult& p : later.points) {
    bool replaced = false;
    for (PointResult& old : into.points)
      if (same_point(old, p)) {
        into.screened.push_back(std::move(old));
        old = std::move(p);
        replaced = true;
        break;
      }
    if (!replaced) into.points.push_back(std::move(p));
  }
  for (PointResult& p : later.screened) into.screened.push_back(std::move(p));
  for (const auto& [collective, offer] : later.nccl_offered) into.nccl_offered[collective] |= offer;
  // A rerun that failed (a crash or a hang of this group's settings) puts the group's earlier
  // points in doubt too: the run says so and tune skips it, as it would a failed grid run.
  if (later.status != RunStatus::Ok && into.status == RunStatus::Ok) {
    into.status = later.status;
    into.reason = later.reason;
  }
  into.duration_s += later.duration_s;  // the group's time over every round
  into.startup_s += later.startup_s;
  into.race_round = later.race_round;
}

}  // namespace

void fold_race_rounds(Results& results) {
  std::vector<RunResult> runs;
  std::map<std::pair<std::string, std::string>, std::size_t> first;  // (backend, group) -> index in runs
  for (RunResult& run : results.runs) {
    const auto key = std::make_pair(run.backend, run.group);
    const auto it = first.find(key);
    if (run.race_round > 0 && it != first.end()) {
      fold_into(runs[it->second], std::move(run));
      continue;
    }
    first.try_emplace(key, runs.size());
    runs.push_back(std::move(run));
  }
  results.runs = std::move(runs);
}

}  // namespace cctune
