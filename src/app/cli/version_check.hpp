#pragma once
// Checks that a multi-rank job is one job built from one set of libraries, before
// anything is measured:
//  - the launcher wired the ranks together (srun without PMIx, or a foreign mpirun,
//    starts N singletons that would each sweep alone and overwrite one results.json);
//  - every rank runs the same cctune build and MPI library (and, with the NCCL backend,
//    the same NCCL, as its workers report it).
//
// Tests simulate a mismatch without a second installation through AdjustVersions, which a
// test build of cctune fills (docs/TESTING.md, "Test hooks").
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "app/cli/session.hpp"
#include "comm/rank_comm.hpp"

namespace cctune::app {

using Versions = std::map<std::string, std::string>;

// This process's versions: "cctune" (version and git sha) and "mpi" (library version).
Versions local_versions();

// How many ranks the launcher says it started (OMPI_COMM_WORLD_SIZE, an srun step's task
// count, PMI_SIZE), or 0 when there is no launcher.
int launcher_task_count();

// Collective. Throws EnvironmentError on every rank when the launcher started more tasks
// than MPI sees: the ranks are not one MPI job.
void check_launch(RankComm& comm, const std::string& host);

// What a test build of cctune may change in a rank's versions before they are compared
// (app/cli/seams.hpp); production passes none.
using AdjustVersions = std::function<void(int rank, Versions& versions)>;

// Collective. Allgathers each rank's `mine` (after `adjust`, when given) and throws
// EnvironmentError on every rank when any key differs, naming the versions and which
// ranks and hosts have each, e.g.
//   "library versions differ across ranks: mpi is 'Open MPI v4.1.4' on ranks 0,2-3 (node-a, node-c)
//    and 'Open MPI v4.1.2' on rank 1 (node-b)"
// `hosts`: every rank's host (JobLayout::hosts); `adjust` changes this rank's versions first (a test build's seam).
void check_versions_match(RankComm& comm, const std::vector<std::string>& hosts, Versions mine, const AdjustVersions& adjust = {});

// The message above for already gathered versions (empty when all agree); pure, tested.
std::string describe_version_mismatch(const std::vector<Versions>& per_rank, const std::vector<std::string>& hosts);

// What sweep and verify call right after resolving options: check_launch, then
// check_versions_match(local_versions() plus `more`, e.g. {"nccl": the workers' NCCL}).
void check_job_consistency(Session& session, const Versions& more = {});

}  // namespace cctune::app
