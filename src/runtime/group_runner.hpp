#pragma once
// The supervisor side of one config group: spawn this supervisor's workers, relay NCCL's
// unique id over the launcher, watch the pipes, heartbeats and the group deadline, and
// agree with every other supervisor (an allgather every tick) on when the group is over.
// On any failure, every supervisor kills its workers and all return the same outcome.
#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "collectives/backend.hpp"
#include "comm/rank_comm.hpp"
#include "core/error_kind.hpp"
#include "core/results.hpp"
#include "runtime/groups.hpp"
#include "runtime/protocol.hpp"
#include "runtime/worker_logs.hpp"

namespace cctune::runtime {

struct GroupSettings {
  std::string executable;                      // the cctune binary (workers are `cctune __worker`)
  std::string log_dir;                         // <output>/workers (created by the caller)
  std::map<std::string, std::string> base_env; // the supervisor's environment
  double point_timeout_s = 60;                 // heartbeat: longest silence of a worker
  double group_timeout_s = 600;                // deadline of the whole group
  double tick_s = 0.2;                         // agreement period
};

struct LocalWorker {
  WorkerSpec spec;                             // rank, device, plan...
  std::map<std::string, std::string> env;      // per-worker additions (NCCL_HOSTID)
};

enum class GroupStatus { Ok, Failed, Interrupted, Aborted };
std::string to_string(GroupStatus s);

struct GroupOutcome {
  GroupStatus status = GroupStatus::Ok;
  std::string reason;       // one line: who, what (signal, exit code, timeout), last point
  ErrorKind error_kind = ErrorKind::Failure;  // Aborted: Usage or Environment (the worker's one-line error)
  std::string error_fix;
  nlohmann::json hello;     // the first local worker's hello (versions), null if none came
};

struct GroupCallbacks {
  // A point result from NCCL rank 0's worker (only on the supervisor that owns it), as the
  // point gate admitted it.
  std::function<void(long index, const PointResult& result)> on_point;
  // The point NCCL rank 0's worker starts (only on the supervisor that owns it).
  std::function<void(long index)> on_progress;
  // Polled every tick; true asks every supervisor to stop the group (SIGINT/SIGTERM).
  std::function<bool()> stop_requested;
};

// Collective over `comm`: every supervisor calls it for the same group, in the same order.
// `points` is the group's point list (to name the point a worker had reached).
GroupOutcome run_group(RankComm& comm, const ConfigGroup& group, const std::vector<LocalWorker>& workers,
                       const std::vector<PointSpec>& points, const GroupSettings& settings, const GroupCallbacks& callbacks);

}  // namespace cctune::runtime
