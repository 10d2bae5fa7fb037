#include "app/nccl_sweep.hpp"
#include "app/sections.hpp"

#include <unistd.h>

#include <chrono>
#include <functional>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>
#include <algorithm>
#include <regex>

#include "app/signals.hpp"
#include "collectives/rank_agreement.hpp"
#include "core/error.hpp"
#include "core/results_json.hpp"
#include "core/units.hpp"
#include "runtime/group_runner.hpp"
#include "runtime/groups.hpp"
#include "runtime/worker_plan.hpp"
#include "runtime/worker_process.hpp"

namespace cctune::app {
namespace {

std::string scratch_dir() {
  std::error_code ec;
  auto d = std::filesystem::temp_directory_path(ec);
  return ec ? std::string("/tmp") : d.string();
}

struct Placement {
  std::vector<int> devices;        // the CUDA device of each of this supervisor's workers
  runtime::WorkerLayout layout;    // NCCL ranks of its workers
  std::vector<std::string> host_ids;  // NCCL_HOSTID per worker (--emulate-nodes, --test-shared-gpu)
  int nnodes = 1;
  std::vector<RankPlace> places;   // every NCCL rank's host and device, indexed by NCCL rank
};

// NCCL ranks follow the supervisors' order, each supervisor's workers in device order
// (runtime::layout_workers), so the supervisors' device lists, concatenated, place them all.
std::vector<RankPlace> worker_places(RankComm& comm, const std::vector<std::string>& hosts, const std::vector<int>& devices) {
  std::string mine;
  for (const int d : devices) mine += (mine.empty() ? "" : ",") + std::to_string(d);
  const auto all = comm.allgather(mine);
  std::vector<RankPlace> places;
  std::map<std::string, int> on_host;
  for (std::size_t r = 0; r < all.size(); ++r) {
    std::stringstream in(all[r]);
    for (std::string d; std::getline(in, d, ',');) places.push_back(RankPlace{hosts[r], on_host[hosts[r]]++, std::stoi(d)});
  }
  return places;
}

Placement place_workers(Session& session, RankComm& comm, const NcclSettings& ns, int device_count) {
  Placement p;
  const std::string& host = session.hostname();
  const auto hosts = comm.allgather(host);
  int ranks_on_node = 0, local_index = 0;
  for (int r = 0; r < static_cast<int>(hosts.size()); ++r)
    if (hosts[static_cast<std::size_t>(r)] == host) {
      ++ranks_on_node;
      if (r < comm.rank()) ++local_index;
    }
  const bool shared = ns.test_shared_gpu > 0;
  agree_on_errors(comm, [&] {
    p.devices = runtime::worker_devices(runtime::owned_devices(host, ranks_on_node, local_index, device_count, ns.gpus, shared),
                                        ns.test_shared_gpu);
  });
  const auto counts = comm.allgather(std::to_string(p.devices.size()));
  std::vector<runtime::SupervisorSlot> slots;
  for (std::size_t r = 0; r < hosts.size(); ++r) slots.push_back({hosts[r], std::stoi(counts[r])});
  p.layout = runtime::layout_workers(slots, comm.rank());
  agree_on_errors(comm, [&] {
    p.host_ids = runtime::worker_host_ids(host, p.layout, static_cast<int>(p.devices.size()), ns.emulate_nodes, shared);
  });
  p.nnodes = runtime::job_nodes(p.layout, ns.emulate_nodes, shared);
  p.places = worker_places(comm, hosts, p.devices);
  return p;
}

// The points of one group as reporter events, as they arrive: a section per collective;
// screening measurements (halving strategy) are reported as such, outside the sections. A
// section is one collective, data type, op and root (sections.hpp).
class PointFeed {
 public:
  using Context = std::function<std::string(const SectionKey&)>;
  PointFeed(Reporter& reporters, Context context) : reporters_(reporters), context_(std::move(context)) {}
  void add(const nlohmann::json& j) {
    const PointResult p = j.get<PointResult>();
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
std::vector<runtime::LocalWorker> group_workers(Session& session, const Placement& place, const SweepPlan& plan,
                                                const runtime::ConfigGroup& group, const std::optional<runtime::TestFault>& fault) {
  SweepPlan group_plan = plan;
  group_plan.skips = group.skips;
  const nlohmann::json plan_json = to_json(group_plan);
  std::vector<runtime::LocalWorker> workers;
  for (std::size_t i = 0; i < place.devices.size(); ++i) {
    runtime::LocalWorker w;
    w.spec.group = group.label;
    w.spec.nranks = place.layout.nranks;
    w.spec.rank = place.layout.first_rank + static_cast<int>(i);
    w.spec.device = place.devices[i];
    w.spec.nnodes = place.nnodes;
    w.spec.host = session.hostname();
    w.spec.graph = plan.nccl.graph;
    w.spec.plan = plan_json;
    if (fault && (fault->group.empty() || fault->group == group.label)) w.spec.test_fault = fault;
    if (!place.host_ids[i].empty()) w.env["NCCL_HOSTID"] = place.host_ids[i];
    workers.push_back(std::move(w));
  }
  return workers;
}

// The line above each of the group's table sections (`section`: its dtype, op and root).
std::string group_context(const runtime::ConfigGroup& group, const Placement& place, const SweepPlan& plan, const SectionKey& section) {
  const int shared = plan.nccl.test_shared_gpu;
  return "backend nccl, group " + group.label + ", " + std::to_string(place.layout.nranks) + " ranks on " + std::to_string(place.nnodes) +
         " node" + (place.nnodes == 1 ? "" : "s") + section_suffix(section) +
         (shared > 0 ? ", TEST MODE shared-gpu (" + std::to_string(shared) + " per GPU, socket transport): functional check, not performance"
                     : std::string());
}

// The group's run record before its points: its own settings (what a profile may carry)
// and everything NCCL reads in the workers, the caller's NCCL_* variables as well.
RunResult group_run(const runtime::ConfigGroup& effective, const runtime::GroupSettings& settings, const Placement& place,
                    const NcclSettings& ns) {
  RunResult run;
  run.backend = "nccl";
  run.group = effective.label;
  run.env = effective.env;
  run.nccl_env = runtime::nccl_variables(runtime::worker_environment(settings.base_env, effective.env));
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
runtime::GroupOutcome measure_group(RankComm& comm, const runtime::ConfigGroup& effective, const std::vector<runtime::LocalWorker>& workers,
                                    const std::vector<PointSpec>& points, const runtime::GroupSettings& settings, Reporter& reporters,
                                    const PointFeed::Context& context, long first_step) {
  PointFeed feed(reporters, context);
  runtime::GroupCallbacks callbacks;
  const auto group_start = std::chrono::steady_clock::now();
  double startup_s = 0;
  auto since_start = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - group_start).count(); };
  callbacks.on_point = [&](long, const nlohmann::json& result) {
    if (startup_s == 0) startup_s = since_start();
    feed.add(result);
  };
  callbacks.on_progress = [&](long index) {
    if (index >= 0 && index < static_cast<long>(points.size()))
      reporters.measuring(first_step + index, effective.label + ": " + runtime::describe(points[static_cast<std::size_t>(index)]));
  };
  callbacks.stop_requested = [] { return stop_signal() != 0; };
  const auto result = runtime::run_group(comm, effective, workers, points, settings, callbacks);
  feed.close();
  reporters.run_timing(since_start(), startup_s);
  return result;
}

}  // namespace

std::optional<runtime::GpuQuery> query_nccl_backend(Session& session, bool required) {
  RankComm& comm = session.comm();
  session.test_hooks();  // a malformed hook is an error here, not a silent fallback to MPI
  const auto env = runtime::worker_environment(runtime::current_environment(), {});
  std::optional<runtime::GpuQuery> q;
  if (required) {
    agree_on_errors(comm, [&] {
      try {
        q = runtime::query_gpus(session.executable(), env, scratch_dir());
      } catch (const RuntimeFailure& e) {
        throw EnvironmentError(e.what_only(), e.fix());
      }
    });
    return q;
  }
  try {
    q = runtime::query_gpus(session.executable(), env, scratch_dir());
  } catch (const Error&) {
    q.reset();
  }
  if (comm.any(!q || q->device_count == 0)) return std::nullopt;
  return q;
}

void record_versions(const runtime::GpuQuery& q, Meta& meta) {
  meta.versions["nccl"] = q.nccl_version;
  std::smatch m;
  static const std::regex split("runtime ([^,]+), driver (.+)");
  if (std::regex_match(q.cuda, m, split)) {
    meta.versions["cuda_runtime"] = m[1];
    meta.versions["cuda_driver"] = m[2];
  } else {
    meta.versions["cuda"] = q.cuda;
  }
}

JobShape nccl_job_shape(Session& session, const SweepPlan& plan, const runtime::GpuQuery& gpus) {
  const Placement place = place_workers(session, session.comm(), plan.nccl, gpus.device_count);
  return {place.layout.nranks, place.nnodes};
}

SweepOutcome run_nccl_sweep(Session& session, const SweepPlan& plan, const runtime::GpuQuery& gpus, Reporter& reporters) {
  RankComm& comm = session.comm();
  const NcclSettings& ns = plan.nccl;
  const Placement place = place_workers(session, comm, ns, gpus.device_count);
  const int nranks = place.layout.nranks;
  check_root(plan, nranks);

  const auto points = runtime::enumerate_points(plan, nranks);
  std::optional<runtime::TestFault> fault;
  agree_on_errors(comm, [&] {
    if (const auto& f = session.test_hooks().fault; !f.empty()) fault = runtime::parse_test_fault(f);
  });

  runtime::GroupSettings settings;
  settings.executable = session.executable();
  // Workers on nodes that do not share the output directory log to a private scratch folder.
  agree_on_errors(comm, [&] { settings.log_dir = runtime::make_worker_log_dir(plan.output_dir, scratch_dir()); });
  settings.base_env = runtime::current_environment();
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
    runtime::ConfigGroup effective = group;
    // A group that names its own plugin keeps it (cctune verify runs the production .so).
    effective.env.try_emplace("NCCL_TUNER_PLUGIN", "STATIC_PLUGIN");
    const auto workers = group_workers(session, place, plan, group, fault);
    reporters.begin_run(group_run(effective, settings, place, ns));
    const long first_step = static_cast<long>(outcome.groups++) * static_cast<long>(points.size());
    const auto result = measure_group(comm, effective, workers, points, settings, reporters,
                                      [&](const SectionKey& k) { return group_context(group, place, plan, k); }, first_step);
    switch (result.status) {
      case runtime::GroupStatus::Ok: break;
      case runtime::GroupStatus::Interrupted:
        outcome.stop_signal = agreed_stop_signal();
        return outcome;
      case runtime::GroupStatus::Failed:
        ++outcome.failed_groups;
        reporters.fail_run(result.reason);
        reporters.note("group " + group.label + " FAILED: " + result.reason);
        break;
      case runtime::GroupStatus::Aborted:
        // The worker's own one-line error (bad size, missing library): the same for every
        // group, so the sweep stops with it.
        reporters.fail_run(result.reason);
        reporters.finish(MetaStatus::Failed);
        throw_error(result.error_kind, result.reason, result.error_fix);
    }
  }
  return outcome;
}

}  // namespace cctune::app
