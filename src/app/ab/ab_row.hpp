#pragma once
// How every A/B command (verify, the confirmation round, replay --profile, verify --job,
// tune --job) says a verdict: one JSON block and one terminal line for an AbRow
// (ab_analysis.hpp), so that a reader of one command's output reads every other's.
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "app/ab/ab_analysis.hpp"

namespace cctune::app {

// The unit of a row's two medians: a size's call (us) or a job's step (ms).
enum class AbUnit { Us, Ms };

// One row of an A/B document: the verdict, or none when the row's shape was not measured in
// every round (a group failed), plus the keys its command adds (collective, candidate, rule...).
struct AbEntry {
  std::optional<AbRow> row;
  AbUnit unit = AbUnit::Us;
  nlohmann::json keys = nlohmann::json::object();
};

// The verdict block: default_<unit>, profile_<unit>, speedup, ci_low, ci_high, ci_confidence,
// rounds (pairs used), verdict, more_pairs and note; an unmeasured row has rounds 0, speedup and
// interval 0 and verdict "unmeasured" (configs/schema/ab.schema.json "verdict").
nlohmann::json verdict_json(const std::optional<AbRow>& row, AbUnit unit);
// verdict_json(entry.row) with the entry's keys; a key of both is the verdict's.
nlohmann::json to_json(const AbEntry& entry);

// "NCCL defaults 76.241 ms -> profile 21.247 ms (-72.1 %); speedup 3.413 [2.865, 4.245]
// (88 % interval) over 4 pairs: faster", then "  # note" when the row has one. The caller says
// whose time it is ("# job: step time ", "# confirm allreduce 1MiB: ").
std::string verdict_line(const AbRow& row, AbUnit unit);

// What every A/B document's "method" says: the pairing and the interval, then what was timed.
std::string ab_method(std::string_view timed);

}  // namespace cctune::app
