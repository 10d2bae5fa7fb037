#pragma once
// What `cctune sweep` and `cctune verify` share around a backend's sweep: the output files,
// checked before anything is measured; the results' metadata; rank 0's reporters. Ranks
// other than 0 get an empty set, so the backends report without asking who listens.
#include <memory>
#include <optional>
#include <string>

#include "app/csv_reporter.hpp"
#include "app/json_reporter.hpp"
#include "app/output_lock.hpp"
#include "app/reporter.hpp"
#include "app/session.hpp"
#include "app/sweep_options.hpp"
#include "runtime/query.hpp"

namespace cctune::app {

struct JobFiles {
  std::string results_path;          // <output directory>/results.json
  std::unique_ptr<CsvReporter> csv;  // --csv FILE, created (rank 0 only)
  std::unique_ptr<OutputLock> lock;  // held on `output_dir` for the run (rank 0 only)
};

// Collective: rank 0 checks that `output_dir` is writable, locks it for this run (refusing an
// existing results.json as `existing` says) and creates `csv_path` (unless empty)
// exclusively; every rank throws the same error when any of them fails.
JobFiles open_job_files(Session& session, const std::string& output_dir, const std::string& csv_path = {},
                        ExistingResults existing = ExistingResults::Replace);

// meta.settings as results.json holds it: the resolved plan (runtime::to_json) with the
// space's record (space_settings) and the workload's (workload_settings) beside it, each left
// out when null. runtime::plan_of, space_name_of and recorded_workload_of read it back.
nlohmann::json plan_settings(const SweepPlan& plan, const nlohmann::json& space, const nlohmann::json& workload);

// Collective (host names are gathered): who ran `plan` where, with its settings (and the
// `workload` record, unless null), and the versions of NCCL and CUDA (from `gpus`) when NCCL
// measures.
Meta sweep_meta(Session& session, const SweepPlan& plan, const std::optional<runtime::GpuQuery>& gpus,
                const nlohmann::json& workload = nlohmann::json());

struct JobReporters {
  Reporters all;                 // what the backend reports to; empty on ranks other than 0
  JsonReporter* json = nullptr;  // results.json's reporter (in `all`); null on other ranks
  std::unique_ptr<OutputLock> lock;  // the output directory's, until the reporters are done
};

// Rank 0: the progress line, the table (when `table`), results.json starting from
// `initial`, and the CSV of `files`. Other ranks: none.
JobReporters make_job_reporters(RankComm& comm, Results initial, JobFiles files, bool table);

}  // namespace cctune::app
