#include "runtime/nccl_job.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>

#include "comm/rank_agreement.hpp"
#include "comm/rank_comm_typed.hpp"
#include "core/error.hpp"
#include "runtime/group_runner.hpp"
#include "runtime/groups.hpp"
#include "runtime/sections.hpp"
#include "runtime/signals.hpp"
#include "runtime/worker_plan.hpp"
#include "runtime/worker_process.hpp"

namespace cctune::runtime {
namespace {

std::string scratch_dir() {
  std::error_code ec;
  auto d = std::filesystem::temp_directory_path(ec);
  return ec ? std::string("/tmp") : d.string();
}

// NCCL ranks follow the supervisors' order, each supervisor's workers in device order
// (layout_workers), so the supervisors' device lists, concatenated, place them all.
std::vector<RankPlace> worker_places(RankComm& comm, const JobLayout& job, const std::vector<int>& devices) {
  const std::vector<nlohmann::json> all = allgather_json(comm, devices);
  std::vector<RankPlace> places;
  std::map<std::string, int> on_host;
  for (std::size_t r = 0; r < all.size(); ++r)
    for (const int d : all[r].get<std::vector<int>>()) places.push_back(RankPlace{job.hosts[r], on_host[job.hosts[r]]++, d});
  return places;
}

Placement place_workers(RankComm& comm, const JobLayout& job, const NcclSettings& ns, int device_count) {
  Placement p;
  const bool shared = ns.test_shared_gpu > 0;
  agree_on_errors(comm, [&] {
    p.devices = worker_devices(owned_devices(job.host(), job.ranks_on_node, job.local_rank, device_count, ns.gpus, shared), ns.test_shared_gpu);
  });
  const std::vector<int> counts = allgather_as(comm, static_cast<int>(p.devices.size()));
  std::vector<SupervisorSlot> slots;
  for (std::size_t r = 0; r < job.hosts.size(); ++r) slots.push_back({job.hosts[r], counts[r]});
  p.layout = layout_workers(slots, comm.rank());
  agree_on_errors(comm, [&] {
    p.host_ids = worker_host_ids(job.host(), p.layout, static_cast<int>(p.devices.size()), ns.emulate_nodes, shared);
  });
  p.nnodes = job_nodes(p.layout, ns.emulate_nodes, shared);
  p.places = worker_places(comm, job, p.devices);
  return p;
}

// The points of one group as reporter events, as they arrive: a section per collective;
// screening measurements (halving strategy) are reported as such, outside the sections. A
// section is one collective, data type, op and root (sections.hpp).
class PointFeed {
 public:
  using Context = std::function<std::string(const SectionKey&)>;
  PointFeed(Reporter& reporters, Context context) : reporters_(reporters), context_(std::move(context)) {}
  void add(const PointResult& p) {
    if (p.screen_round >= 0) {
      reporters_.screened(p);
      return;
    }
    if (!open_ || section_of(p) != current_) {
      close();
      current_ = section_of(p);
      reporters_.begin_collective(p.collective, context_(current_));
      open_ = true;
    }
    reporters_.point(p);
  }
  void close() {
    if (open_) reporters_.end_collective();
    open_ = false;
  }

 private:
  Reporter& reporters_;
  Context context_;
  bool open_ = false;
  SectionKey current_;
};

// This supervisor's workers of `group`. Their plan is the sweep's, with the configs the
// group's space plan skips.
std::vector<LocalWorker> group_workers(const Supervisor& who, const Placement& place, const SweepPlan& plan, const ConfigGroup& group) {
  SweepPlan group_plan = plan;
  group_plan.skips = group.skips;
  const nlohmann::json plan_json = to_json(group_plan);
  std::vector<LocalWorker> workers;
  for (std::size_t i = 0; i < place.devices.size(); ++i) {
    LocalWorker w;
    w.spec.group = group.label;
    w.spec.nranks = place.layout.nranks;
    w.spec.rank = place.layout.first_rank + static_cast<int>(i);
    w.spec.device = place.devices[i];
    w.spec.nnodes = place.nnodes;
    w.spec.host = who.hostname;
    w.spec.graph = plan.nccl.graph;
    w.spec.plan = plan_json;
    if (!place.host_ids[i].empty()) w.env["NCCL_HOSTID"] = place.host_ids[i];
    workers.push_back(std::move(w));
  }
  return workers;
}

// The line above each of the group's table sections (`section`: its dtype, op and root).
std::string group_context(const ConfigGroup& group, const Placement& place, const SweepPlan& plan, const SectionKey& section) {
  const int shared = plan.nccl.test_shared_gpu;
  return "backend nccl, group " + group.label + ", " + std::to_string(place.layout.nranks) + " ranks on " + std::to_string(place.nnodes) +
         " node" + (place.nnodes == 1 ? "" : "s") + section_suffix(section) +
         (shared > 0 ? ", TEST MODE shared-gpu (" + std::to_string(shared) + " per GPU, socket transport): functional check, not performance"
                     : std::string());
}

// The group's run record before its points: its own settings (what a profile may carry)
// and everything NCCL reads in the workers, the caller's NCCL_* variables as well.
RunResult group_run(const ConfigGroup& effective, const GroupSettings& settings, const Placement& place, const NcclSettings& ns) {
  RunResult run;
  run.backend = "nccl";
  run.group = effective.label;
  run.env = effective.env;
  run.nccl_env = nccl_variables(worker_environment(settings.base_env, effective.env));
  if (ns.emulate_nodes > 1) run.env["NCCL_HOSTID"] = "<host>-emu<j>: " + std::to_string(ns.emulate_nodes) + " emulated nodes per host";
  if (ns.test_shared_gpu > 0) {
    run.env["NCCL_HOSTID"] = "<host>-shared<j>: one NCCL host per worker (shared-GPU test mode)";
    run.test_mode = test_mode_shared_gpu;
    run.test_shared_gpu = ns.test_shared_gpu;
  }
  run.nranks = place.layout.nranks;
  run.nnodes = place.nnodes;
  run.places = place.places;
  return run;
}

// Runs one group's workers through the points, reporting as results arrive. `first_step`:
// the progress count of the group's first point.
GroupOutcome measure_group(RankComm& comm, const ConfigGroup& effective, const std::vector<LocalWorker>& workers,
                           const std::vector<PointSpec>& points, const GroupSettings& settings, Reporter& reporters,
                           const PointFeed::Context& context, long first_step) {
  PointFeed feed(reporters, context);
  GroupCallbacks callbacks;
  const auto group_start = std::chrono::steady_clock::now();
  double startup_s = 0;
  auto since_start = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - group_start).count(); };
  callbacks.on_point = [&](long, const PointResult& result) {
    if (startup_s == 0) startup_s = since_start();
    feed.add(result);
  };
  callbacks.on_progress = [&](long index) {
    if (index >= 0 && index < static_cast<long>(points.size()))
      reporters.measuring(first_step + index, effective.label + ": " + describe(points[static_cast<std::size_t>(index)]));
  };
  callbacks.stop_requested = [] { return stop_signal() != 0; };
  const auto result = run_group(comm, effective, workers, points, settings, callbacks);
  feed.close();
  reporters.run_timing(since_start(), startup_s);
  return result;
}

}  // namespace

std::optional<GpuQuery> query_nccl_backend(RankComm& comm, const std::string& executable, bool required) {
  const auto env = worker_environment(current_environment(), {});
  std::optional<GpuQuery> q;
  if (required) {
    agree_on_errors(comm, [&] {
      try {
        q = query_gpus(executable, env, scratch_dir());
      } catch (const RuntimeFailure& e) {
        throw EnvironmentError(e.what_only(), e.fix());
      }
    });
    return q;
  }
  try {
    q = query_gpus(executable, env, scratch_dir());
  } catch (const Error&) {
    q.reset();
  }
  if (comm.any(!q || q->device_count == 0)) return std::nullopt;
  return q;
}

void record_versions(const GpuQuery& q, Meta& meta) {
  meta.versions["nccl"] = q.nccl_version;
  if (!q.cuda_runtime.empty()) {
    meta.versions["cuda_runtime"] = q.cuda_runtime;
    meta.versions["cuda_driver"] = q.cuda_driver;
  } else {
    meta.versions["cuda"] = q.cuda;
  }
}

JobShape planned_shape(const NcclSettings& ns, int hosts) {
  const int nranks = ns.gpus > 0 ? ns.gpus * hosts * std::max(1, ns.test_shared_gpu) : 0;
  return {nranks, nccl_nodes(hosts, nranks, ns.emulate_nodes, ns.test_shared_gpu > 0)};
}

NcclJob::NcclJob(Supervisor who, const NcclSettings& placement, int device_count)
    : who_(std::move(who)),
      gpus_(placement.gpus),
      emulate_nodes_(placement.emulate_nodes),
      test_shared_gpu_(placement.test_shared_gpu),
      place_(place_workers(who_.comm, who_.layout, placement, device_count)) {}

SweepOutcome NcclJob::run(const SweepPlan& plan, Reporter& reporters) const {
  RankComm& comm = who_.comm;
  const NcclSettings& ns = plan.nccl;
  if (ns.gpus != gpus_ || ns.emulate_nodes != emulate_nodes_ || ns.test_shared_gpu != test_shared_gpu_)
    throw RuntimeFailure("internal: the plan's GPUs, emulated nodes or test mode differ from those its workers were placed for");
  const int nranks = place_.layout.nranks;
  check_root(plan, nranks);

  const auto points = enumerate_points(plan, nranks);
  GroupSettings settings;
  settings.executable = who_.executable;
  // Workers on nodes that do not share the output directory log to a private scratch folder.
  agree_on_errors(comm, [&] { settings.log_dir = make_worker_log_dir(plan.output_dir, scratch_dir()); });
  settings.base_env = current_environment();
  settings.point_timeout_s = ns.point_timeout_s;
  // Automatic deadline: start-up plus three time caps per point, generously.
  settings.group_timeout_s = ns.group_timeout_s > 0 ? ns.group_timeout_s
                                                    : 120.0 + static_cast<double>(points.size()) * (3.0 * plan.measure.stop.max_time_s + 1.0);

  SweepOutcome outcome;
  // Progress through the points of every group; with the halving strategy the index still
  // advances through collectives and sizes in order (configs are the inner loop).
  reporters.begin_sweep(static_cast<long>(points.size() * ns.groups.size()));
  for (const auto& group : ns.groups) {
    if (comm.any(stop_signal() != 0)) {
      outcome.stop_signal = agreed_stop_signal();
      return outcome;
    }
    // The executable exports cctune's tuner plugin; workers use it to force and observe
    // NCCL's algorithm, protocol and channel choices.
    ConfigGroup effective = group;
    // A group that names its own plugin keeps it (cctune verify runs the production .so).
    effective.env.try_emplace("NCCL_TUNER_PLUGIN", "STATIC_PLUGIN");
    const auto workers = group_workers(who_, place_, plan, group);
    reporters.begin_run(group_run(effective, settings, place_, ns));
    const long first_step = static_cast<long>(outcome.groups++) * static_cast<long>(points.size());
    const auto result = measure_group(comm, effective, workers, points, settings, reporters,
                                      [&](const SectionKey& k) { return group_context(group, place_, plan, k); }, first_step);
    switch (result.status) {
      case GroupStatus::Ok: break;
      case GroupStatus::Interrupted:
        outcome.stop_signal = agreed_stop_signal();
        return outcome;
      case GroupStatus::Failed:
        ++outcome.failed_groups;
        reporters.fail_run(result.reason);
        reporters.note("group " + group.label + " FAILED: " + result.reason);
        break;
      case GroupStatus::Aborted:
        // The worker's own one-line error (bad size, missing library): the same for every
        // group, so the job stops with it.
        reporters.fail_run(result.reason);
        reporters.finish(MetaStatus::Failed);
        throw_error(result.error_kind, result.reason, result.error_fix);
    }
  }
  return outcome;
}

}  // namespace cctune::runtime
