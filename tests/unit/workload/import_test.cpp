// The importers against real captures of a PyTorch job on one H100 (tests/fixtures/workload/
// captures-h100-torch2.11-nccl2.28.9, made by tests/gpu/workload/capture_workloads.sh): what
// they find must equal what the job counted itself (counts.rank<R>.json).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "workload/flight_recorder_import.hpp"
#include "workload/nccl_log_import.hpp"

namespace cctune::workload {
namespace {

const std::string kCaptures = std::string(CCTUNE_SOURCE_DIR) + "/tests/fixtures/workload/captures-h100-torch2.11-nccl2.28.9/";

Workload from_logs(const std::string& job) {
  WorkloadBuilder b;
  for (int r : {0, 1}) {
    std::ifstream in(kCaptures + job + "/nccl.rank" + std::to_string(r) + ".log");
    EXPECT_TRUE(in.good());
    const LogImportStats s = import_nccl_log(in, b);
    EXPECT_EQ(s.skipped_lines, 0);
    EXPECT_EQ(s.unmapped_calls, 0);
  }
  return b.finish("nccl-log", {});
}

Workload from_flight(const std::string& job) {
  WorkloadBuilder b;
  for (int r : {0, 1}) {
    std::ifstream in(kCaptures + job + "/flight.rank" + std::to_string(r) + ".json");
    import_flight_recorder(nlohmann::json::parse(in), r, b, "flight.rank" + std::to_string(r) + ".json");
  }
  return b.finish("flight-recorder", {});
}

// (collective, dtype, NCCL count) -> calls per rank, as the job counted them itself.
using Counts = std::map<std::tuple<std::string, std::string, std::uint64_t>, std::uint64_t>;

Counts job_counts(const std::string& job) {
  std::ifstream in(kCaptures + job + "/counts.rank0.json");
  const auto j = nlohmann::json::parse(in);
  const std::map<std::string, std::pair<std::string, int>> torch_to_nccl{
      {"all_reduce", {"allreduce", 0}}, {"barrier", {"allreduce", 0}},
      {"all_gather_into_tensor", {"allgather", 0}}, {"reduce_scatter_tensor", {"reducescatter", 1}},
      {"all_to_all_single", {"alltoall", 2}}};
  Counts c;
  for (const auto& row : j["calls"]) {
    const auto& [coll, rule] = torch_to_nccl.at(row["op"].get<std::string>());
    const std::uint64_t in_numel = row["input_numel"], out_numel = row["output_numel"];
    const std::uint64_t count = rule == 0 ? in_numel : rule == 1 ? out_numel : in_numel / 2;
    c[{coll, row["dtype"].get<std::string>(), count}] += row["calls"].get<std::uint64_t>();
  }
  return c;
}

Counts counts_of(const Workload& w) {
  Counts c;
  for (const Communicator& comm : w.communicators)
    for (const CallStats& s : comm.calls) c[{to_string(s.shape.collective), to_string(s.shape.dtype), s.shape.count}] += s.calls;
  return c;
}

TEST(WorkloadImport, NcclLogMatchesTheJobsOwnCounts) {
  for (const std::string job : {"fsdp", "alltoall"}) {
    const Workload w = from_logs(job);
    ASSERT_EQ(w.communicators.size(), 1u) << job;
    const Communicator& c = w.communicators[0];
    EXPECT_TRUE(c.id.starts_with("0x") && c.id.size() == 18) << job << ": NCCL's commId, not " << c.id;
    EXPECT_EQ(c.nranks, 2);
    EXPECT_EQ(c.nnodes, 2);  // NCCL_HOSTID made each process its own node
    EXPECT_EQ(c.ranks, (std::vector<int>{0, 1}));
    EXPECT_EQ(counts_of(w), job_counts(job)) << job;
  }
}

TEST(WorkloadImport, DdpLogHasTheReducersBroadcastsBesideTheCountedCalls) {
  const Workload w = from_logs("ddp");
  Counts expected = job_counts("ddp");
  // The reducer's bucket rebuild after step 0 (int32 broadcasts of 7 and 2 elements), which the
  // job's comm hook cannot see (counts.rank0.json says so).
  expected[{"broadcast", "int32", 7}] = 1;
  expected[{"broadcast", "int32", 2}] = 1;
  EXPECT_EQ(counts_of(w), expected);
}

TEST(WorkloadImport, TuningLinesGiveWhatNcclApplied) {
  // As NCCL 2.28.9's TUNING lines in the fsdp capture say (2 nodes of one rank: PAT for the
  // smallest ReduceScatter, one channel for the barrier).
  const std::map<std::pair<Collective, std::uint64_t>, Applied> expected{
      {{Collective::AllGather, 262144}, {Algorithm::Ring, Protocol::Simple, 2, 4}},
      {{Collective::AllGather, 65536}, {Algorithm::Ring, Protocol::Simple, 2, 4}},
      {{Collective::AllGather, 4096}, {Algorithm::Ring, Protocol::LL, 2, 4}},
      {{Collective::ReduceScatter, 262144}, {Algorithm::Ring, Protocol::Simple, 2, 4}},
      {{Collective::ReduceScatter, 65536}, {Algorithm::Ring, Protocol::Simple, 2, 4}},
      {{Collective::ReduceScatter, 4096}, {Algorithm::Pat, Protocol::Simple, 2, 4}},
      {{Collective::AllReduce, 1}, {Algorithm::Ring, Protocol::LL, 1, 1}}};
  const Workload w = from_logs("fsdp");
  const auto& calls = w.communicators[0].calls;
  ASSERT_EQ(calls.size(), expected.size());
  for (const CallStats& s : calls) {
    ASSERT_EQ(s.applied.size(), 1u);
    ASSERT_TRUE(expected.count({s.shape.collective, s.shape.count})) << to_string(s.shape.collective) << " " << s.shape.count;
    EXPECT_EQ(s.applied[0], expected.at({s.shape.collective, s.shape.count})) << to_string(s.shape.collective) << " " << s.shape.count;
  }
}

TEST(WorkloadImport, AllGatherAndReduceScatterBytesAreNcclsNBytes) {
  const Workload w = from_logs("fsdp");
  for (const CallStats& s : w.communicators[0].calls) {
    if (s.shape.collective == Collective::AllGather || s.shape.collective == Collective::ReduceScatter) {
      EXPECT_EQ(s.shape.bytes, s.shape.count * 2 * dtype_size(s.shape.dtype));
    }
  }
}

TEST(WorkloadImport, FlightRecorderAgreesWithTheLogOnEveryShape) {
  for (const std::string job : {"ddp", "fsdp", "alltoall"}) {
    const Workload log = from_logs(job), flight = from_flight(job);
    EXPECT_EQ(counts_of(flight), counts_of(log)) << job;
    ASSERT_EQ(flight.communicators.size(), 1u);
    EXPECT_EQ(flight.communicators[0].nranks, 2);
    std::uint64_t timed = 0;
    for (const CallStats& s : flight.communicators[0].calls) {
      EXPECT_FALSE(s.shape.op.has_value()) << "the flight recorder does not record the op";
      // Only calls whose completion PyTorch's watchdog saw carry duration_ms.
      EXPECT_LE(s.durations.samples, s.calls * 2);
      timed += s.durations.samples;
    }
    // TORCH_NCCL_ENABLE_TIMING=1 gave durations to 6 of fsdp's 25 entries and 3 of alltoall's 5
    // on rank 0; none of ddp's, whose calls come from the autograd thread.
    if (job != "ddp") {
      EXPECT_GT(timed, 0u) << job;
    }
  }
}

// The grouped job (PyTorch's coalescing manager around three all_reduces, a batch_isend_irecv
// pair, one lone all_reduce per step): the log's shared opCounts and the flight recorder's shared
// sequence ids give the same groups, the ones the job says it issued.
TEST(WorkloadImport, LogAndFlightRecorderFindTheJobsGroups) {
  using Members = std::vector<std::tuple<std::string, std::string, std::uint64_t>>;
  std::map<Members, std::uint64_t> job;
  std::ifstream in(kCaptures + "grouped/counts.rank0.json");
  const nlohmann::json counts = nlohmann::json::parse(in);
  for (const auto& g : counts.at("extra").at("groups")) {
    Members m;
    bool p2p = false;
    for (const auto& x : g["members"]) {
      m.emplace_back(x[0].get<std::string>(), x[1].get<std::string>(), x[2].get<std::uint64_t>());
      p2p = p2p || x[0] == "send" || x[0] == "recv";
    }
    job[m] = g["calls_per_rank"].get<std::uint64_t>() * (p2p ? 2 : 1);  // p2p groups add up over the 2 ranks
  }
  ASSERT_EQ(job.size(), 2u);
  for (const Workload& w : {from_logs("grouped"), from_flight("grouped")}) {
    ASSERT_EQ(w.communicators.size(), 1u);
    std::map<Members, std::uint64_t> found;
    for (const CallGroup& g : w.communicators[0].groups) {
      Members m;
      for (const CallShape& s : g.members)
        m.emplace_back(s.kind == CallKind::Collective ? to_string(s.collective) : to_string(s.kind), to_string(s.dtype), s.count);
      found[m] = g.calls;
    }
    EXPECT_EQ(found, job) << w.format;
  }
  EXPECT_EQ(counts_of(from_flight("grouped")), counts_of(from_logs("grouped")));  // sends and receives included
}

TEST(WorkloadImport, HostileLogLinesAreSkippedNotTrusted) {
  std::istringstream in(
      "h:1:1 [0] NCCL INFO AllReduce: opCount 0 sendbuff 0x1 recvbuff 0x2 count 99999999999999999999 datatype 7 op 0 root 0 comm 0x3 [nranks=2] stream 0x4\n"
      "h:1:1 [0] NCCL INFO AllReduce: opCount 0 sendbuff 0x1 recvbuff 0x2 count 8 datatype 77 op 0 root 0 comm 0x3 [nranks=2] stream 0x4\n"
      "h:1:1 [0] NCCL INFO AllReduce: opCount 0 count 8 datatype 7 op 0 root 0 comm 0x3 [nranks=0] stream 0x4\n"
      "h:1:1 [0] NCCL INFO Frobnicate: opCount 0 count 8 datatype 7 op 0 root 0 comm 0x3 [nranks=2] stream 0x4\n" +
      std::string(100000, 'x') + " NCCL INFO AllReduce: opCount 0 count 8 datatype 7 op 0 root 0 comm 0x3 [nranks=2]\n"
      "h:1:1 [0] NCCL INFO AllReduce: opCount 1 count 8 datatype 7 op 0 root 0 comm 0x3 [nranks=2] stream 0x4\n");
  WorkloadBuilder b;
  const LogImportStats s = import_nccl_log(in, b);
  EXPECT_EQ(s.call_lines, 1);
  EXPECT_EQ(s.skipped_lines, 4);
  EXPECT_EQ(s.unmapped_calls, 1);
  const Workload w = b.finish("nccl-log", {});
  ASSERT_EQ(w.communicators.size(), 1u);
  EXPECT_EQ(w.communicators[0].calls.at(0).shape.bytes, 32u);
}

// Consecutive lines of one communicator sharing an opCount are one group; another
// communicator's lines in between do not end it; a lone call is no group.
TEST(WorkloadImport, LogLinesSharingAnOpCountAreOneGroup) {
  const auto line = [](const char* func, int op_count, int count, const char* comm) {
    return std::string("h:1:1 [0] NCCL INFO ") + func + ": opCount " + std::to_string(op_count) +
           " sendbuff 0x1 recvbuff 0x2 count " + std::to_string(count) + " datatype 7 op 0 root 0 comm " + comm +
           " [nranks=2] stream 0x4\n";
  };
  std::string log = "h:1:1 [0] NCCL INFO comm 0xa rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1000 commId 0x11 - Init COMPLETE\n"
                    "h:1:1 [0] NCCL INFO comm 0xb rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1000 commId 0x22 - Init COMPLETE\n";
  for (int step = 0; step < 3; ++step) {
    const int base = step * 3;
    log += line("AllReduce", base, 1024, "0xa") + line("AllReduce", step, 7, "0xb") + line("AllReduce", base, 256, "0xa") +
           line("Send", base + 1, 64, "0xa") + line("Recv", base + 1, 64, "0xa") + line("AllReduce", base + 2, 4096, "0xa");
  }
  std::istringstream in(log);
  WorkloadBuilder b;
  EXPECT_EQ(import_nccl_log(in, b).call_lines, 18);
  const Workload w = b.finish("nccl-log", {});
  ASSERT_EQ(w.communicators.size(), 2u);
  const Communicator& a = w.communicators[0].id == "0x11" ? w.communicators[0] : w.communicators[1];
  const Communicator& other = w.communicators[0].id == "0x11" ? w.communicators[1] : w.communicators[0];
  EXPECT_TRUE(other.groups.empty());
  ASSERT_EQ(a.groups.size(), 2u);
  EXPECT_EQ(a.groups[0].calls, 3u);
  EXPECT_EQ(a.groups[0].members.size(), 2u);
  EXPECT_EQ(a.groups[0].members[0].count, 1024u);  // issue order
  EXPECT_EQ(a.groups[0].members[1].count, 256u);
  EXPECT_TRUE(a.groups[1].has_p2p());
  EXPECT_EQ(a.groups[1].calls, 3u);
}

}  // namespace
}  // namespace cctune::workload
