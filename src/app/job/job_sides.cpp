#include "app/job/job_sides.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <vector>

#include "app/workload_input/workload_files.hpp"
#include "core/error.hpp"
#include "core/nccl_settings.hpp"
#include "core/text.hpp"
#include "workload/workload.hpp"

namespace cctune::app {
namespace {

namespace fs = std::filesystem;

// A run's directory holds one file per process; more would be no job cctune can time.
constexpr std::size_t kMaxProcessFiles = 4096;

// A profiler file the run left: anything the job's processes wrote there, so a file cctune
// cannot read is the run's failure (exit 1), not the user's input (review R12: it said "pass a
// workload.json written by cctune workload import", exit 2).
workload::Workload job_file(const std::string& path) {
  try {
    return workload_of(read_workload_doc(path, WorkloadDoc::Workload), path);
  } catch (const UsageError& e) {
    throw RuntimeFailure("the job's run left a profiler file cctune cannot read: " + e.what_only(),
                         "check what else in the job writes workload.*.json files into CCTUNE_WORKLOAD's directory");
  }
}

}  // namespace

RaceBase race_base(const std::map<std::string, std::string>& caller, const std::vector<const AbSide*>& sides) {
  RaceBase out;
  const auto set_by_a_side = [&](const std::string& key) {
    return std::any_of(sides.begin(), sides.end(), [&](const AbSide* s) { return s->env.count(key) > 0; });
  };
  for (const auto& [key, value] : caller) {
    const bool tuner = key == "NCCL_TUNER_PLUGIN" || key == "NCCL_PROFILER_PLUGIN" || key.rfind("CCTUNE_", 0) == 0;
    if (tuner || set_by_a_side(key)) {
      out.removed.push_back(key);
      continue;
    }
    out.env.emplace(key, value);
    if (is_nccl_setting_name(key)) out.kept_nccl.emplace(key, value);
  }
  return out;
}

std::map<std::string, std::string> run_environment(const std::map<std::string, std::string>& base, const AbSide& side,
                                                   const std::string& plugin, const std::string& workload_dir,
                                                   std::optional<std::uint64_t> steps) {
  std::map<std::string, std::string> env = base;
  for (const auto& [k, v] : side.env) env[k] = v;
  env.erase("CCTUNE_WORKLOAD_STEPS");
  env["NCCL_PROFILER_PLUGIN"] = plugin;
  env["CCTUNE_WORKLOAD"] = workload_dir;
  env["CCTUNE_WORKLOAD_EVENTS"] = "calls";  // issue times are all the step time needs: no kernel timing
  env["CCTUNE_WORKLOAD_STEP_TIMES"] = "1";
  if (steps) env["CCTUNE_WORKLOAD_STEPS"] = std::to_string(*steps);
  return env;
}

StepTime read_step_time(const std::string& workload_dir) {
  std::vector<double> per_process;  // ms per call of the step
  std::map<std::uint64_t, int> lengths;
  StepTime out;
  std::size_t files = 0;
  std::optional<workload::NoStep> why;  // the first file's reason, where none shows a step
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(workload_dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("workload.", 0) != 0 || e.path().extension() != ".json") continue;
    if (++files > kMaxProcessFiles)
      throw RuntimeFailure("the job's run left more than " + std::to_string(kMaxProcessFiles) + " profiler files in " +
                               text::terminal_text(workload_dir),
                           "time a job of fewer processes");
    const workload::Workload w = job_file(e.path().string());
    if (w.tuner) workload::add_tuner_report(out.tuner, *w.tuner);
    const workload::Communicator* busiest = workload::busiest_with_cadence(w, /*timed=*/true);
    if (!busiest) {
      if (!why) why = workload::why_no_step(w, /*timed=*/true);
      continue;
    }
    per_process.push_back(busiest->cadence->step_ms / static_cast<double>(busiest->cadence->calls_per_step));
    ++lengths[busiest->cadence->calls_per_step];
    out.timed_steps = out.timed_steps == 0 ? busiest->cadence->timed_steps : std::min(out.timed_steps, busiest->cadence->timed_steps);
  }
  if (ec)
    throw RuntimeFailure("cannot read the job's profiler files in " + text::terminal_text(workload_dir) + ": " + ec.message(),
                         "check the file system the run directory is on");
  if (per_process.empty() && files == 0)
    throw RuntimeFailure(
        "the job left no profiler file in " + text::terminal_text(workload_dir) + ": NCCL did not load cctune's profiler half",
        "check that the job uses NCCL (2.23 or later) and passes NCCL_PROFILER_PLUGIN and CCTUNE_WORKLOAD "
        "to its processes (mpirun: -x NCCL_PROFILER_PLUGIN -x CCTUNE_WORKLOAD)");
  // What the profiler saw of the busiest communicator, from the job's own files: escaped.
  if (per_process.empty())
    throw RuntimeFailure("the job's calls in " + text::terminal_text(workload_dir) +
                             " show no repeating step: " + text::terminal_text(why ? why->reason : "no communicator shows one"),
                         text::terminal_text(why ? why->fix : "pass --steps N with the steps the job runs"));
  std::sort(per_process.begin(), per_process.end());
  const std::size_t n = per_process.size();
  out.ms_per_call = n % 2 ? per_process[n / 2] : (per_process[n / 2 - 1] + per_process[n / 2]) / 2;
  int most = 0;
  for (const auto& [length, count] : lengths)  // ascending: a tie keeps the shorter
    if (count > most) out.calls_per_step = length, most = count;
  out.step_ms = out.ms_per_call * static_cast<double>(out.calls_per_step);
  out.processes = static_cast<int>(n);
  return out;
}

}  // namespace cctune::app
