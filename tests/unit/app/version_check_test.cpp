#include "app/cli/version_check.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>

#include "core/error.hpp"
#include "support/thread_comm.hpp"

namespace cctune::app {
namespace {

TEST(VersionCheck, AgreeingRanksGiveNoMessage) {
  const Versions v = {{"cctune", "0.1.0 (abc)"}, {"mpi", "Open MPI v4.1.4"}};
  EXPECT_EQ(describe_version_mismatch({v, v, v}, {"a", "a", "b"}), "");
}

TEST(VersionCheck, MismatchNamesEachVersionWithItsRanksAndHosts) {
  const Versions good = {{"cctune", "0.1.0 (abc)"}, {"mpi", "Open MPI v4.1.4"}};
  Versions odd = good;
  odd["mpi"] = "Open MPI v4.1.2";
  EXPECT_EQ(describe_version_mismatch({good, odd, good, good}, {"n1", "n2", "n3", "n3"}),
            "library versions differ across ranks: mpi is 'Open MPI v4.1.4' on ranks 0,2-3 (n1, n3) and "
            "'Open MPI v4.1.2' on rank 1 (n2)");
  Versions with_nccl = good;
  with_nccl["nccl"] = "2.99.0";
  EXPECT_EQ(describe_version_mismatch({good, with_nccl}, {"n1", "n1"}),
            "library versions differ across ranks: nccl is missing on rank 0 (n1) and '2.99.0' on rank 1 (n1)");
}

TEST(VersionCheck, EveryRankThrowsTheSameErrorBeforeMeasuring) {
  std::atomic<int> thrown{0};
  std::string message;
  testing::run_ranks(3, [&](RankComm& comm) {
    try {
      // Rank 2's version faked as a test build of cctune fakes it (Seams::adjust_versions).
      const AdjustVersions fake = [](int rank, Versions& v) {
        if (rank == 2) v["nccl"] = "2.99.0";
      };
      check_versions_match(comm, {"host0", "host1", "host2"}, {{"nccl", "2.28.9"}}, fake);
    } catch (const EnvironmentError& e) {
      if (++thrown == 1) message = e.what_only();
    }
  });
  EXPECT_EQ(thrown, 3);
  EXPECT_EQ(message,
            "library versions differ across ranks: nccl is '2.28.9' on ranks 0-1 (host0, host1) and '2.99.0' on rank 2 "
            "(host2); nothing was measured");
}

TEST(VersionCheck, LauncherTaskCountPrefersMpirunOverTheSlurmStep) {
  ::setenv("SLURM_STEP_ID", "0", 1);
  ::setenv("SLURM_STEP_NUM_TASKS", "1", 1);
  ::setenv("OMPI_COMM_WORLD_SIZE", "4", 1);
  EXPECT_EQ(launcher_task_count(), 4);
  ::unsetenv("OMPI_COMM_WORLD_SIZE");
  EXPECT_EQ(launcher_task_count(), 1);
  ::setenv("SLURM_STEP_NUM_TASKS", "2", 1);
  std::atomic<int> thrown{0};
  testing::run_ranks(1, [&](RankComm& comm) {
    try {
      check_launch(comm, "h");
    } catch (const EnvironmentError& e) {
      if (e.fix().find("--mpi=pmix") != std::string::npos) ++thrown;
    }
  });
  ::unsetenv("SLURM_STEP_ID");
  ::unsetenv("SLURM_STEP_NUM_TASKS");
  EXPECT_EQ(thrown, 1);
}

}  // namespace
}  // namespace cctune::app
