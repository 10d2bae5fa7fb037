#pragma once
// The measuring half of `cctune diagnose`: the job's ranks grouped into nodes, and the sweep
// machinery (run_mpi_sweep, runtime::NcclJob, net::run_network_probe) run unchanged on parts of
// the job at once: every node alone, the node pairs of one round, all nodes. Each part's result
// reaches world rank 0. docs/DIAGNOSE.md describes the stages.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli/session.hpp"
#include "app/cli/sweep_options.hpp"
#include "net/pair_schedule.hpp"
#include "net/probe_options.hpp"
#include "runtime/query.hpp"

namespace cctune::app::diagnose {

// Which node each rank of the job belongs to. A node is a host name; in the shared-GPU test
// mode (ranks as emulated hosts on one GPU) every rank is a node "<host>-shared<r>" of its own,
// as its workers' NCCL_HOSTID says.
struct NodeMap {
  std::vector<std::string> names;  // node index -> name, in order of first rank
  std::vector<int> node_of_rank;   // world rank -> node index
  std::vector<int> leader;         // node index -> its lowest world rank
  int my_node = 0;
  int nodes() const { return static_cast<int>(names.size()); }
};

// Collective over the world.
NodeMap map_nodes(Session& session, bool rank_is_node);

// What one part of the job measured: its run (the sweep's one config group), as part rank 0 saw it.
struct PartRun {
  std::vector<std::string> nodes;  // the nodes of the part (one, or a pair)
  RunResult run;
  double duration_s = 0;
};

// The measuring plan and the NCCL query (nullopt: the MPI backend).
struct StageContext {
  Session& session;
  const NodeMap& map;
  const SweepPlan& plan;
  const std::optional<runtime::GpuQuery>& gpus;
};

// Collective over the world. Every node alone, all at once.
std::vector<PartRun> run_per_node(const StageContext& ctx);
// The pairs of `round` at once (nodes idle in it wait).
std::vector<PartRun> run_pair_round(const StageContext& ctx, const net::Round& round);
// Every rank together.
std::vector<PartRun> run_all_nodes(const StageContext& ctx);

// The NCCL ranks (workers) of each node, from its own placement; the MPI backend: its ranks.
std::vector<int> gpus_per_node(const StageContext& ctx);

// One pair of a round through the network probe, between the two nodes' leaders: the probe's
// `net` section, or its one-line error (a pair that cannot be probed does not stop the job).
struct PairProbe {
  std::vector<std::string> nodes;
  nlohmann::json net;  // null when it failed
  std::string error;
};
std::vector<PairProbe> probe_pair_round(const StageContext& ctx, const net::Round& round, const net::ProbeOptions& options);

}  // namespace cctune::app::diagnose
