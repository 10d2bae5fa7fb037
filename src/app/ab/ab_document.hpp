#pragma once
// The one document every A/B command writes (verify.json, confirmation.json, replay.json,
// verify_job.json, tune_job.json): what was compared, how, and its rows and step verdicts in
// the family's one row layout (ab_row.hpp). configs/schema/ab.schema.json is its contract;
// docs/RESULTS.md "A/B documents" describes each command's.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/ab/ab_row.hpp"

namespace cctune::app {

// Members without a value of their own take `{}`, so that a designated initializer may leave them
// out without -Wmissing-field-initializers.
struct AbDocument {
  std::string schema{};   // "cctune.verify/1", "cctune.confirmation/1", ...
  std::string subject{};  // what a row compares, in words ("collective time per call and size")
  std::string method{};   // ab_method(...)
  int rounds = 0;         // pairs asked for (--rounds)
  double tolerance = 0;   // the verdict's, a fraction
  // Per-shape or per-candidate rows, under `rows_key` (tune_job.json's are its "standings");
  // no rows key is written when `rows_key` is empty.
  std::vector<AbEntry> rows{};
  std::string rows_key = "rows";
  // The one verdict about the whole job, under `step_key` ("job_step", tune_job.json's "winner").
  std::optional<AbEntry> step{};
  std::string step_key = "job_step";
  nlohmann::json extra = nlohmann::json::object();  // the command's own keys (profile, status, ...)
};

nlohmann::json to_json(const AbDocument& doc);
// Writes to_json(doc) to `path` with write_file_atomically: a reader sees the old file or the
// whole new one, never a part.
void write_ab_document(const AbDocument& doc, const std::string& path);

}  // namespace cctune::app
