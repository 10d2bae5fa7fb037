#include "app/sweep_job.hpp"

#include <filesystem>

#include "app/nccl_sweep.hpp"
#include "app/progress.hpp"
#include "app/run_meta.hpp"
#include "app/table_reporter.hpp"
#include "comm/rank_agreement.hpp"
#include "core/files.hpp"
#include "core/results_json.hpp"

namespace cctune::app {

JobFiles open_job_files(Session& session, const std::string& output_dir, const std::string& csv_path, ExistingResults existing) {
  RankComm& comm = session.comm();
  JobFiles files;
  files.results_path = (std::filesystem::path(output_dir) / "results.json").string();
  agree_on_errors(comm, [&] {
    if (comm.rank() != 0) return;
    ensure_writable_directory(output_dir);
    files.lock = std::make_unique<OutputLock>(output_dir, existing);
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

Meta sweep_meta(Session& session, const SweepPlan& plan, const std::optional<runtime::GpuQuery>& gpus, const nlohmann::json& workload) {
  Meta meta = collect_meta(session);
  meta.settings = ResultSection(plan_settings(plan, nlohmann::json(), workload));
  if (plan.backend == BackendChoice::Nccl && gpus) record_versions(*gpus, meta);
  return meta;
}

JobReporters make_job_reporters(RankComm& comm, Results initial, JobFiles files, bool table) {
  JobReporters out;
  if (comm.rank() != 0) return out;
  out.lock = std::move(files.lock);
  // The journal first: a point is durable before any line shows it, so a kill between the two
  // never loses a point the user saw. Then the progress line: it clears itself before the
  // others print.
  auto json = std::make_unique<JsonReporter>(std::move(initial), files.results_path);
  out.json = json.get();
  out.all.add(std::move(json));
  out.all.add(std::make_unique<ProgressReporter>());
  if (table) out.all.add(std::make_unique<TableReporter>());
  if (files.csv) out.all.add(std::move(files.csv));
  return out;
}

}  // namespace cctune::app
