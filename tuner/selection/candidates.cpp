#include "tuner/selection/candidates.hpp"

#include <algorithm>
#include <map>
#include <string>

#include "core/collective_traits.hpp"
#include "core/error.hpp"
#include "core/nccl_settings.hpp"
#include "core/text.hpp"
#include "tuner/profile/profile.hpp"
#include "tuner/selection/provenance.hpp"

namespace cctune::tuner {
namespace {

// A run's env holds the group's settings and what cctune set only to measure (its
// in-executable plugin); a profile's env carries the group's own settings. Runs that predate
// `nccl_env` also hold the NCCL_NVLS_ENABLE=0 that cctune then forced on every worker: not a
// group's choice, and written into nccl.env it would switch production's NVLS off.
// A results file may come from someone else (docs/SECURITY.md), and a group's env becomes a
// profile's, nccl.env's and tune --job's runs': it passes the rule a group's settings pass.
std::map<std::string, std::string> group_settings(const RunResult& run) {
  std::map<std::string, std::string> env;
  for (const auto& [k, v] : run.env) {
    if (is_sweep_variable(k)) continue;
    if (const std::optional<SettingProblem> p = deployable_setting_problem(k, v))
      throw UsageError("the results' group \"" + text::log_text(run.group, 64) + "\" sets " + text::log_text(k, 64) + "=" +
                           text::log_text(v, 64) + ", refused: " + text::log_text(k, 64) + " " + p->what,
                       "tune results written by cctune sweep, unchanged (a group may set: " + p->fix + ")");
    env.emplace(k, v);
  }
  if (run.nccl_env.empty()) env.erase("NCCL_NVLS_ENABLE");
  return env;
}

std::size_t group_index(CandidateSet& set, const RunResult& run) {
  for (std::size_t i = 0; i < set.groups.size(); ++i)
    if (set.groups[i].name == run.group) return i;
  set.groups.push_back({run.group, group_settings(run)});
  return set.groups.size() - 1;
}

// What a point's call was besides its config: the choice compares configs of one layout.
struct Layout {
  bool in_place = false;
  DType dtype = DType::Float32;
  ReduceOp op = ReduceOp::Sum;  // reductions only
  int root = 0;                 // rooted collectives only
  std::optional<P2pImpl> impl;  // native and grouped alltoall/gather/scatter are different calls
  bool operator==(const Layout&) const = default;
};

Layout layout_of(const PointResult& p) {
  return {p.in_place, p.dtype, is_reduction(p.collective) ? p.op : ReduceOp::Sum, is_rooted(p.collective) ? p.root.value_or(0) : 0, p.impl};
}

struct Located {
  ShapeKey shape;
  std::size_t group;
  const PointResult* point;
};

}  // namespace

CandidateSet collect_candidates(const Results& results, const std::map<Collective, DType>& preferred_dtypes) {
  CandidateSet set;
  std::vector<Located> usable;
  std::size_t wrong = 0, ignored_forced = 0, other_backend = 0;
  for (const RunResult& run : results.runs) {
    // A profile steers NCCL: MPI runs in the same file (side-by-side comparisons) are not candidates.
    if (run.backend != "nccl") {
      ++other_backend;
      continue;
    }
    const std::size_t g = group_index(set, run);
    for (const PointResult& p : run.points) {
      if (p.status != PointStatus::Ok) continue;
      if (p.wrong > 0) {
        ++wrong;
        continue;
      }
      // NCCL's point-to-point path (alltoall, sendrecv, gather, scatter) ignores the tuner: its
      // NCCL-default points still weigh in the choice of the process-level group, a forced
      // config there is NCCL's default under another name.
      if (!is_tunable(p.collective) && !p.config.is_default()) {
        ++ignored_forced;
        continue;
      }
      usable.push_back({{p.collective, run.nranks, run.nnodes}, g, &p});
    }
  }
  if (other_backend) set.notes.push_back(std::to_string(other_backend) + " run(s) of other backends than nccl were left out");
  if (wrong) set.notes.push_back(std::to_string(wrong) + " point(s) with wrong results were left out");
  if (ignored_forced)
    set.notes.push_back(std::to_string(ignored_forced) +
                        " forced point(s) of collectives NCCL's tuner does not steer (alltoall, sendrecv, gather, scatter) were left out");

  // Per (shape, size): one layout (the job's data type, then out-of-place, when measured; else the
  // first seen), so that different data types, ops and roots never compete as if they were
  // configs of one call.
  const auto rank = [&](Collective c, const Layout& l) {
    auto it = preferred_dtypes.find(c);
    return (it != preferred_dtypes.end() && it->second == l.dtype ? 2 : 0) + (l.in_place ? 0 : 1);
  };
  std::map<std::pair<ShapeKey, std::uint64_t>, Layout> pick;
  for (const Located& l : usable) {
    const Layout mine = layout_of(*l.point);
    auto [it, fresh] = pick.try_emplace({l.shape, l.point->size_bytes}, mine);
    if (!fresh && rank(l.shape.collective, mine) > rank(l.shape.collective, it->second)) it->second = mine;
  }
  std::size_t other_layout = 0;
  for (const Located& l : usable) {
    if (!(layout_of(*l.point) == pick.at({l.shape, l.point->size_bytes}))) {
      ++other_layout;
      continue;
    }
    Candidate c{l.group, l.point->config, l.point->chosen_algo, l.point->chosen_proto, l.point->chosen_channels,
                timing_of(*l.point), l.point->dtype};
    auto& list = set.by_shape[l.shape][l.point->size_bytes];
    auto same = std::find_if(list.begin(), list.end(), [&](const Candidate& o) { return o.group == c.group && o.config == c.config; });
    if (same == list.end()) list.push_back(c);
    else if (c.timing.halfwidth_us < same->timing.halfwidth_us) *same = c;
  }
  if (other_layout)
    set.notes.push_back(std::to_string(other_layout) +
                        " point(s) of a second placement, data type, op or root were not used for the choice (out-of-place, "
                        "the job's data type where known, and the first data type, op and root seen are)");
  return set;
}

}  // namespace cctune::tuner
