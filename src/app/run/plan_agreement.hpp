#pragma once
// Plan agreement (issue 24, F4): every rank builds its plan from its own argv and files, so
// an MPMD launch or node-local space files that differ give ranks different plans, which
// then wait forever in mismatched collectives. Before anything is measured or written, the
// ranks compare a hash of their resolved plan (meta.settings, the space's resolved content
// included) and, when they differ, all stop with one line naming the first difference.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "comm/rank_comm.hpp"

namespace cctune::app {

// FNV-1a over the plan's compact JSON: the same plan gives the same hash in every process of
// one build (the build itself is checked by check_job_consistency).
std::uint64_t plan_hash(const nlohmann::json& settings);

// The first difference between two plans, as "<key> <value of a>" / "<value of b>" pieces
// joined for the error line: e.g. `sizes_bytes has 10 entries (last 4096)` against
// `8 entries (last 1024)`. Empty when they are equal.
struct PlanDifference {
  std::string key;  // "sizes_bytes", "nccl.groups[0].label", ...
  std::string a;    // the value on the first side, short, ASCII
  std::string b;
};
PlanDifference first_plan_difference(const nlohmann::json& a, const nlohmann::json& b);

// Collective over `comm`. Throws UsageError on every rank alike when any rank's plan differs
// from rank 0's: "plan mismatch: rank 1 has max ..., rank 0 has ...".
void agree_on_plan(RankComm& comm, const nlohmann::json& settings);

}  // namespace cctune::app
