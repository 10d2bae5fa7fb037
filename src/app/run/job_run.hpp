#pragma once
// What every measuring command (sweep, verify, replay, diagnose) shares around a backend's
// sweep: the output files, checked and locked before anything is measured; the results'
// metadata; rank 0's reporters; and the run itself, from the first point to the exit status
// every rank agrees on. Ranks other than 0 get an empty set of reporters, so the backends
// report without asking who listens.
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "app/cli/session.hpp"
#include "app/cli/sweep_options.hpp"
#include "app/run/csv_reporter.hpp"
#include "app/run/output_lock.hpp"
#include "core/reporter.hpp"
#include "runtime/nccl_job.hpp"
#include "runtime/query.hpp"
#include "runtime/sweep_outcome.hpp"
#include "workload/workload_plan.hpp"

namespace cctune::app {

struct JobFiles {
  std::string results_path;          // <output directory>/results.json
  std::unique_ptr<CsvReporter> csv;  // --csv FILE, created (rank 0 only)
  std::unique_ptr<OutputLock> lock;  // held on `output_dir` for the run (rank 0 only)
};

// Collective: rank 0 checks that `output_dir` is writable, locks it for this run (refusing
// earlier results in it as `existing` says: every command refuses them unless --force) and
// creates `csv_path` (unless empty) exclusively; every rank throws the same error when any of
// them fails. `resumable`: a refusal names --resume (sweep's results).
JobFiles open_job_files(Session& session, const std::string& output_dir, ExistingResults existing, const std::string& csv_path = {},
                        bool resumable = false);

// meta.settings as results.json holds it: the resolved plan (runtime::to_json) with the
// space's record (space_settings) and the workload's (workload_settings) beside it, each left
// out when null. runtime::plan_of, space_name_of and recorded_workload_of read it back.
nlohmann::json plan_settings(const SweepPlan& plan, const nlohmann::json& space, const nlohmann::json& workload);

// The parts of meta.settings beside the plan, as JSON and as the typed values their readers take.
struct SettingsParts {
  nlohmann::json space;                         // space_settings; null: no space
  std::string space_name;                       // its name
  nlohmann::json workload;                      // workload_settings; null: no workload
  const workload::WorkloadPlan* job = nullptr;  // the plan the workload record was written from
};

// meta.settings of a run in this process: plan_settings' JSON, with the plan, the space's name,
// the job's weights and the test mode in place as their readers' values, so that nothing in
// this process parses the settings it wrote (core/result_section.hpp).
ResultSection settings_section(const SweepPlan& plan, const SettingsParts& parts = {});

// Collective (host names are gathered): who ran `plan` where, with its settings, and the
// versions of NCCL and CUDA (from `gpus`) when NCCL measures.
Meta sweep_meta(Session& session, const SweepPlan& plan, const std::optional<runtime::GpuQuery>& gpus, const SettingsParts& parts = {});

// This rank as the supervisor of its NCCL workers (runtime::NcclJob).
runtime::Supervisor supervisor_of(Session& session);

// One measuring command's run after its plan is settled.
struct JobRun {
  Results initial;  // meta (and --resume's carried points, topology, probe) results.json starts from
  JobFiles files;
  bool table = false;  // print nccl-tests' table while measuring
  // Runs the measurement, reporting to `reporters`.
  std::function<runtime::SweepOutcome(Reporter& reporters)> measure;
  // Rank 0, once the reporters finished a complete run: what the command makes of the results
  // in memory (the file just written is never read back); returns the exit status.
  std::function<int(const Results& results, const runtime::SweepOutcome& outcome)> conclude;
  // Rank 0, after a stop by SIGINT/SIGTERM (the results so far are saved): what to tell the user.
  std::function<void(int signal, const std::string& results_path)> interrupted;
};

// Collective: measures, finishes the reporters ("complete" or "interrupted") and concludes.
// Every rank returns the same exit status: 130/143 after a stop, else the largest rank's
// (rank 0's conclusion; an Error it throws is printed and becomes its exit status).
int run_job(Session& session, JobRun run);

// Collective: `conclude` runs where `here` (rank 0, as a rule); an Error it throws is printed
// and becomes its exit status; every rank returns the largest status of any rank.
int agreed_exit_status(RankComm& comm, bool here, const std::function<int()>& conclude);

}  // namespace cctune::app
