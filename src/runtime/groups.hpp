#pragma once
// Config groups (process-level NCCL settings, one set of workers each) and the layout of
// workers over supervisors: which GPUs a supervisor owns, which NCCL rank each worker gets,
// and the NCCL_HOSTID that --emulate-nodes gives it. Pure functions, tested without MPI.
#include <map>
#include <string>
#include <vector>

#include "core/collective.hpp"
#include "core/results.hpp"

namespace cctune::runtime {

// A configuration the search space plan left out for one collective: reported as a skipped
// point with `reason`, never run.
struct SkipRule {
  Collective collective = Collective::AllReduce;
  PointConfig config;
  std::string reason;
};

struct ConfigGroup {
  std::string label;                       // "nvlink", "pcie", "net", or a user label
  std::map<std::string, std::string> env;  // NCCL_* settings of the group
  std::vector<SkipRule> skips;             // from a search space's plan (sweep --space)
};

// The environment of a transport preset: nvlink (NCCL defaults), pcie (NCCL_P2P_DISABLE=1),
// net (NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1). Throws UsageError for another name.
ConfigGroup transport_group(const std::string& name);
// "nvlink,pcie" -> one group each, in order; duplicates rejected.
std::vector<ConfigGroup> transport_groups(const std::string& comma_separated);
// "label:KEY=VALUE,KEY=VALUE" (--env-group). Throws UsageError naming the problem: a label
// check_group_label refuses, a setting core's deployable_setting_problem refuses, a key given
// twice, no setting at all.
ConfigGroup parse_env_group(const std::string& text);
// A group's label as a space file's group name is (letters, digits, '-', '_', '.', starting with
// a letter or digit, at most kMaxGroupLabel), and none of the transports' or verify's sides'.
inline constexpr std::size_t kMaxGroupLabel = 64;
void check_group_label(const std::string& label, const std::string& fix);

// GPUs a supervisor owns. `ranks_on_node`: supervisors on this host; `local_index`: this
// supervisor's position among them; `gpus_requested`: --gpus (0: all, one rank per node).
// `shared_gpu`: the shared-GPU test mode (--test-shared-gpu), where more ranks than GPUs are
// allowed and rank i of the host owns GPU i % device_count.
// Throws UsageError (too many ranks for the GPUs, --gpus above what exists) or
// EnvironmentError (no GPU at all), before anything is measured.
std::vector<int> owned_devices(const std::string& host, int ranks_on_node, int local_index, int device_count,
                               int gpus_requested, bool shared_gpu = false);

// The device of each of a supervisor's workers: one per owned GPU, or `per_gpu` on each in the
// shared-GPU test mode (0 or 1: one). Workers of one GPU are adjacent: {0, 0, 1, 1} for 2 each.
std::vector<int> worker_devices(const std::vector<int>& owned, int per_gpu);

// Where each supervisor's workers sit in the job.
struct SupervisorSlot {
  std::string host;
  int workers = 0;
};
struct WorkerLayout {
  int nranks = 0;             // NCCL ranks in the job (all workers)
  int first_rank = 0;         // NCCL rank of this supervisor's first worker
  int node_offset = 0;        // index of this supervisor's first worker among its host's workers
  int node_workers = 0;       // workers on this host
  int real_nodes = 0;         // distinct hosts
  int local_index = 0;        // this supervisor's position among the supervisors of its host
  int ranks_on_node = 0;      // supervisors on this host
};
WorkerLayout layout_workers(const std::vector<SupervisorSlot>& slots, int my_rank);

// NCCL_HOSTID for a worker at `node_index` of `node_workers` on `host`, when the host is
// split into `k` emulated nodes (contiguous blocks). Throws UsageError when k does not
// divide node_workers or exceeds it.
std::string emulated_host_id(const std::string& host, int node_index, int node_workers, int k);

// NCCL_HOSTID of the worker at `node_index` among its host's workers in the shared-GPU test
// mode: every worker is a host of its own, since NCCL refuses two ranks on one GPU of one host.
std::string shared_gpu_host_id(const std::string& host, int node_index);

// NCCL_HOSTID of each of a supervisor's `workers` (empty: NCCL's own host id), and the NCCL
// node count of the job: hosts x `emulate_nodes`, or one node per worker when `shared_gpu`.
// Throws as emulated_host_id does.
std::vector<std::string> worker_host_ids(const std::string& host, const WorkerLayout& layout, int workers, int emulate_nodes,
                                         bool shared_gpu);
int job_nodes(const WorkerLayout& layout, int emulate_nodes, bool shared_gpu);
// The one rule of NCCL's node count, for placed workers (job_nodes) and for a plan made where
// no GPU is visible (planned_shape): one node per worker in the shared-GPU test mode, else
// `hosts` x `emulate_nodes`.
int nccl_nodes(int hosts, int workers, int emulate_nodes, bool shared_gpu);

}  // namespace cctune::runtime
