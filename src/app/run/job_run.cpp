#include "app/run/job_run.hpp"

#include <cstdio>
#include <filesystem>

#include "app/run/json_reporter.hpp"
#include "app/run/progress.hpp"
#include "app/run/recorded_space.hpp"
#include "app/run/run_meta.hpp"
#include "app/run/table_reporter.hpp"
#include "app/workload_input/workload_input.hpp"
#include "comm/rank_agreement.hpp"
#include "core/error_kind.hpp"
#include "core/files.hpp"
#include "core/results_json.hpp"
#include "core/text.hpp"
#include "runtime/signals.hpp"

namespace cctune::app {
namespace {

// Rank 0's reporters: the journal first, so a point is durable before any line shows it (a
// kill between the two never loses a point the user saw); then the progress line, which
// clears itself before the others print. Other ranks: none.
struct JobReporters {
  Reporters all;
  JsonReporter* json = nullptr;
  std::unique_ptr<OutputLock> lock;  // the output directory's, until the reporters are done
};

JobReporters make_job_reporters(RankComm& comm, Results initial, JobFiles files, bool table) {
  JobReporters out;
  if (comm.rank() != 0) return out;
  out.lock = std::move(files.lock);
  auto json = std::make_unique<JsonReporter>(std::move(initial), files.results_path);
  out.json = json.get();
  out.all.add(std::move(json));
  out.all.add(std::make_unique<ProgressReporter>());
  if (table) out.all.add(std::make_unique<TableReporter>());
  if (files.csv) out.all.add(std::move(files.csv));
  return out;
}

int exit_code_of(const Error& e) {
  switch (error_kind_of(e)) {
    case ErrorKind::Usage: return exit_code::usage;
    case ErrorKind::Environment: return exit_code::environment;
    case ErrorKind::Failure: return exit_code::failure;
  }
  return exit_code::failure;
}

}  // namespace

JobFiles open_job_files(Session& session, const std::string& output_dir, ExistingResults existing, const std::string& csv_path,
                        bool resumable) {
  RankComm& comm = session.comm();
  JobFiles files;
  files.results_path = (std::filesystem::path(output_dir) / "results.json").string();
  agree_on_errors(comm, [&] {
    if (comm.rank() != 0) return;
    ensure_writable_directory(output_dir);
    files.lock = std::make_unique<OutputLock>(output_dir, existing, resumable);
    if (!csv_path.empty()) files.csv = std::make_unique<CsvReporter>(csv_path);
  });
  return files;
}

nlohmann::json plan_settings(const SweepPlan& plan, const nlohmann::json& space, const nlohmann::json& workload) {
  nlohmann::json settings = to_json(plan);
  if (!space.is_null()) settings["space"] = space;
  if (!workload.is_null()) settings["workload"] = workload;
  return settings;
}

ResultSection settings_section(const SweepPlan& plan, const SettingsParts& parts) {
  ResultSection settings(plan_settings(plan, parts.space, parts.workload));
  runtime::seed_plan(settings, plan);
  seed_space_name(settings, parts.space_name);
  seed_recorded_workload(settings, parts.job);
  seed_test_mode(settings, plan.nccl.test_shared_gpu > 0 && plan.backend == BackendChoice::Nccl ? test_mode_shared_gpu : "");
  return settings;
}

Meta sweep_meta(Session& session, const SweepPlan& plan, const std::optional<runtime::GpuQuery>& gpus, const SettingsParts& parts) {
  Meta meta = collect_meta(session);
  meta.settings = settings_section(plan, parts);
  if (plan.backend == BackendChoice::Nccl && gpus) runtime::record_versions(*gpus, meta);
  return meta;
}

runtime::Supervisor supervisor_of(Session& session) { return {session.comm(), session.layout(), session.hostname(), session.executable()}; }

int run_job(Session& session, JobRun run) {
  RankComm& comm = session.comm();
  const std::string path = run.files.results_path;
  JobReporters reporters = make_job_reporters(comm, std::move(run.initial), std::move(run.files), run.table);
  const runtime::SweepOutcome outcome = run.measure(reporters.all);
  if (outcome.interrupted()) {
    reporters.all.finish(MetaStatus::Interrupted);
    if (reporters.json && run.interrupted) run.interrupted(outcome.stop_signal, path);
    return runtime::exit_code_for_stop(outcome.stop_signal);
  }
  reporters.all.finish(MetaStatus::Complete);
  return agreed_exit_status(comm, reporters.json != nullptr, [&] { return run.conclude(reporters.json->results(), outcome); });
}

int agreed_exit_status(RankComm& comm, bool here, const std::function<int()>& conclude) {
  int code = exit_code::ok;
  if (here) {
    try {  // every rank must reach the exit-status agreement below
      code = conclude();
    } catch (const Error& e) {
      std::fprintf(stderr, "cctune: error: %s\n", text::terminal_text(e.describe()).c_str());
      code = exit_code_of(e);
    }
  }
  return static_cast<int>(comm.max(static_cast<double>(code)));  // the same exit status on every rank
}

}  // namespace cctune::app
