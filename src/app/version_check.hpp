#pragma once
// Checks that a multi-rank job is one job built from one set of libraries, before
// anything is measured:
//  - the launcher wired the ranks together (srun without PMIx, or a foreign mpirun,
//    starts N singletons that would each sweep alone and overwrite one results.json);
//  - every rank runs the same cctune build and MPI library (and, with the NCCL backend,
//    the same NCCL, as its workers report it).
//
// Tests simulate a mismatch without a second installation:
//   CCTUNE_TEST_FAKE_VERSION="1:mpi=Open MPI v9.9.9;2:nccl=2.99.0"
// makes rank 1 report that MPI version and rank 2 that NCCL version.
#include <map>
#include <string>
#include <vector>

#include "app/session.hpp"
#include "collectives/rank_comm.hpp"

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

// Collective. Allgathers each rank's `mine` (after the test override) and throws
// EnvironmentError on every rank when any key differs, naming the versions and which
// ranks and hosts have each, e.g.
//   "library versions differ across ranks: mpi is 'Open MPI v4.1.4' on ranks 0,2-3 (node-a, node-c)
//    and 'Open MPI v4.1.2' on rank 1 (node-b)"
// `fake_version`: CCTUNE_TEST_FAKE_VERSION (TestHooks), applied first.
// `hosts`: every rank's host (JobLayout::hosts).
void check_versions_match(RankComm& comm, const std::vector<std::string>& hosts, Versions mine, const std::string& fake_version = {});

// The message above for already gathered versions (empty when all agree); pure, tested.
std::string describe_version_mismatch(const std::vector<Versions>& per_rank, const std::vector<std::string>& hosts);

// Applies CCTUNE_TEST_FAKE_VERSION for `rank` to `v` (see above).
void apply_test_override(int rank, Versions& v, const std::string& spec);

// What sweep and verify call right after resolving options: check_launch, then
// check_versions_match(local_versions() plus `more`, e.g. {"nccl": the workers' NCCL}).
void check_job_consistency(Session& session, const Versions& more = {});

}  // namespace cctune::app
