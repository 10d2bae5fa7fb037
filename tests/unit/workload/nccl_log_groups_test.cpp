// Groups where NCCL does not advance opCount, communicators without a commId, and the bound
// on per-thread state of the NCCL log importer (issue 34, review N5).
#include <gtest/gtest.h>

#include <sstream>

#include "workload/nccl_log_import.hpp"

namespace cctune::workload {
namespace {

std::string init_line(const std::string& key, const std::string& comm, int rank, int nranks, const std::string& comm_id) {
  return key + " [0] NCCL INFO comm " + comm + " rank " + std::to_string(rank) + " nranks " + std::to_string(nranks) +
         " cudaDev 0 busId 1000" + (comm_id.empty() ? "" : " commId " + comm_id) + " - Init COMPLETE\n";
}

std::string call_line(const std::string& key, std::uint64_t count, const std::string& op_count = "0", const std::string& comm = "0x10",
                      int nranks = 2) {
  return key + " [0] NCCL INFO AllReduce: opCount " + op_count + " sendbuff 0x1 recvbuff 0x2 count " + std::to_string(count) +
         " datatype 7 op 0 root 0 comm " + comm + " [nranks=" + std::to_string(nranks) + "] stream 0x3\n";
}

std::string tuning_line(const std::string& key, std::uint64_t bytes) {
  return key + " [0] NCCL INFO AllReduce: " + std::to_string(bytes) + " Bytes -> Algo RING proto LL channel{Lo..Hi}={0..0}\n";
}

Workload import(const std::string& log, LogImportStats* stats = nullptr) {
  std::istringstream in(log);
  WorkloadBuilder b;
  const LogImportStats s = import_nccl_log(in, b);
  if (stats) *stats = s;
  return b.finish("nccl-log", {});
}

// NVLink only (no proxy operations) or one rank: every call prints opCount 0. Lone calls stay
// lone; on 8646a77 these four were one group.
TEST(NcclLogGroups, LoneCallsSharingOpCountZeroAreNoGroup) {
  const std::string key = "h1:100:100";
  std::string log = init_line(key, "0x10", 1, 2, "0xabc");
  for (std::uint64_t count : {1024, 2048, 1024, 2048}) log += call_line(key, count);
  const Workload w = import(log);
  ASSERT_EQ(w.communicators.size(), 1u);
  EXPECT_TRUE(w.communicators[0].groups.empty());
  EXPECT_EQ(w.communicators[0].calls.size(), 2u);
}

// Rank 0 prints a TUNING line per planned call when a group is launched: it closes the run, so
// a group and lone calls are told apart though the opCount never moves.
TEST(NcclLogGroups, TuningLinesCloseGroupsWhereOpCountStays) {
  const std::string key = "h1:100:100";
  std::string log = init_line(key, "0x10", 0, 2, "0xabc");
  for (int step = 0; step < 3; ++step) {
    log += call_line(key, 256) + call_line(key, 64) + call_line(key, 16);
    log += tuning_line(key, 64) + tuning_line(key, 256) + tuning_line(key, 1024);  // NCCL orders them itself
    log += call_line(key, 4096) + tuning_line(key, 16384);
  }
  LogImportStats stats;
  const Workload w = import(log, &stats);
  ASSERT_EQ(w.communicators.size(), 1u);
  const Communicator& c = w.communicators[0];
  ASSERT_EQ(c.groups.size(), 1u);
  EXPECT_EQ(c.groups[0].members.size(), 3u);
  EXPECT_EQ(c.groups[0].members[0].count, 256u);
  EXPECT_EQ(c.groups[0].calls, 3u);
  EXPECT_EQ(stats.tuning_lines, 12);
}

// Where the opCount moves (proxy operations: the network), a change closes a group as before.
TEST(NcclLogGroups, AMovingOpCountStillDelimitsGroups) {
  const std::string key = "h1:100:100";
  std::string log = init_line(key, "0x10", 1, 2, "0xabc");
  log += call_line(key, 256, "0") + call_line(key, 64, "0") + call_line(key, 16, "1") + call_line(key, 256, "2") + call_line(key, 64, "2");
  const Workload w = import(log);
  ASSERT_EQ(w.communicators[0].groups.size(), 1u);
  EXPECT_EQ(w.communicators[0].groups[0].calls, 2u);
}

// NCCL < 2.16 (and split communicators in 2.23-2.30) print no commId: the ranks of one
// communicator are matched by nranks, rank and their calls. On 8646a77 each process was its own
// communicator and the job's calls per step were multiplied by its process count.
TEST(NcclLogGroups, CommunicatorsWithoutCommIdAreMatchedAcrossProcesses) {
  std::string log;
  for (int rank = 0; rank < 4; ++rank) {
    const std::string key = "h" + std::to_string(rank) + ":" + std::to_string(100 + rank) + ":1";
    const std::string ptr = "0x" + std::to_string(50 + rank);
    log += init_line(key, ptr, rank, 4, "") + call_line(key, 1024, "0", ptr, 4) + call_line(key, 8, "1", ptr, 4);
    // A second communicator of two ranks on every process (two of them), the same calls.
    log += init_line(key, "0x99", rank % 2, 2, "") + call_line(key, 32, "0", "0x99", 2);
  }
  LogImportStats stats;
  const Workload w = import(log, &stats);
  ASSERT_EQ(w.communicators.size(), 3u);
  int four = 0, two = 0;
  for (const Communicator& c : w.communicators) {
    EXPECT_TRUE(c.id.starts_with("unmapped:")) << c.id;
    ASSERT_FALSE(c.calls.empty());
    EXPECT_EQ(c.calls[0].calls, 1u) << "calls per rank, not summed over processes";
    if (c.nranks == 4) {
      ++four;
      EXPECT_EQ(c.ranks, (std::vector<int>{0, 1, 2, 3}));
    } else {
      ++two;
      EXPECT_EQ(c.ranks, (std::vector<int>{0, 1}));
    }
  }
  EXPECT_EQ(four, 1);
  EXPECT_EQ(two, 2);
  EXPECT_EQ(stats.matched_communicators, 3);
}

// Different calls on the same nranks are different communicators.
TEST(NcclLogGroups, CommunicatorsWithDifferentCallsAreNotMatched) {
  const std::string log = init_line("h0:1:1", "0x10", 0, 2, "") + call_line("h0:1:1", 1024) + init_line("h1:2:2", "0x10", 1, 2, "") +
                          call_line("h1:2:2", 2048);
  EXPECT_EQ(import(log).communicators.size(), 2u);
}

// Review N5: per-thread state is bounded; a thread's TUNING line still finds its call.
TEST(NcclLogGroups, ManyThreadsKeepBoundedStateAndRecentMatches) {
  std::string log = init_line("h1:100:100", "0x10", 0, 2, "0xabc");
  for (int t = 0; t < 5000; ++t) log += call_line("h1:100:" + std::to_string(1000 + t), 1024, std::to_string(t));
  log += tuning_line("h1:100:5999", 4096);
  LogImportStats stats;
  const Workload w = import(log, &stats);
  EXPECT_EQ(stats.call_lines, 5000);
  EXPECT_EQ(stats.tuning_lines, 1);
  EXPECT_EQ(w.communicators[0].calls[0].applied.size(), 1u);
}

}  // namespace
}  // namespace cctune::workload
