// The NCCL log importer against each line form NCCL prints by version, the prefixes other
// programs put in front of NCCL's key, and lines it cannot read (issue 34, review N7).
#include <gtest/gtest.h>

#include <sstream>

#include "core/error.hpp"
#include "workload/nccl_log_import.hpp"

namespace cctune::workload {
namespace {

const std::string kInit = "h1:100:100 [0] NCCL INFO comm 0x10 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1000 commId 0xabc - Init COMPLETE\n";

std::string call_line(const std::string& key, const std::string& func, std::uint64_t count, const std::string& op_count = "0",
                      const std::string& comm = "0x10", int dtype = 7) {
  return key + " [0] NCCL INFO " + func + ": opCount " + op_count + " sendbuff 0x1 recvbuff 0x2 count " + std::to_string(count) +
         " datatype " + std::to_string(dtype) + " op 0 root 0 comm " + comm + " [nranks=2] stream 0x3\n";
}

struct Imported {
  LogImportStats stats;
  Workload workload;
};

Imported import(const std::string& log, LogImportOptions options = {}) {
  std::istringstream in(log);
  WorkloadBuilder b;
  Imported out;
  out.stats = import_nccl_log(in, b, options);
  out.workload = b.finish("nccl-log", {});
  return out;
}

const CallStats& only_call(const Workload& w) {
  EXPECT_EQ(w.communicators.size(), 1u);
  EXPECT_EQ(w.communicators.at(0).calls.size(), 1u);
  return w.communicators.at(0).calls.at(0);
}

// NCCL 2.20-2.22 (PyTorch 2.3-2.5 wheels): no function name, numeric algorithm and protocol.
// On 8646a77 this aborted the import with basic_string_view::substr.
TEST(NcclLogForms, Tuning220HasNoFunctionNameAndNumbers) {
  const Imported r = import(kInit + call_line("h1:100:100", "AllReduce", 64) +
                            "h1:100:100 [0] NCCL INFO 256 Bytes -> Algo 1 proto 0 time 25.229528\n");
  const CallStats& s = only_call(r.workload);
  ASSERT_EQ(s.applied.size(), 1u);
  EXPECT_EQ(s.applied[0].algo, Algorithm::Ring);
  EXPECT_EQ(s.applied[0].proto, Protocol::LL);
  EXPECT_EQ(r.stats.tuning_lines, 1);
  EXPECT_EQ(r.stats.skipped_lines, 0);
}

// NCCL 2.22-2.23 print NCCL's nBytes (x nranks for AllGather), 2.24+ count x type size.
TEST(NcclLogForms, Tuning223NumbersAreNcclsEnumOrderNotAuto) {
  const Imported r = import(kInit + call_line("h1:100:100", "AllGather", 64) +
                            "h1:100:100 [0] NCCL INFO AllGather: 512 Bytes -> Algo 6 proto 2 time 9.5\n");
  const CallStats& s = only_call(r.workload);
  ASSERT_EQ(s.applied.size(), 1u);
  EXPECT_EQ(s.applied[0].algo, Algorithm::Pat);
  EXPECT_EQ(s.applied[0].proto, Protocol::Simple);
}

TEST(NcclLogForms, Tuning224NamesAndChannels) {
  const Imported r = import(kInit + call_line("h1:100:100", "AllGather", 64) +
                            "h1:100:100 [0] NCCL INFO AllGather: 256 Bytes -> Algo NVLS_TREE proto LL128 channel{Lo..Hi}={0..3}\n");
  const CallStats& s = only_call(r.workload);
  ASSERT_EQ(s.applied.size(), 1u);
  EXPECT_EQ(s.applied[0], (Applied{Algorithm::NvlsTree, Protocol::LL128, 4, 1}));
}

// Review N7: a TUNING-shaped line without ':' (interleaved processes sharing one file).
TEST(NcclLogForms, UnreadableLinesAreSkippedAndCountedWithTheirLine) {
  const Imported r = import(kInit + call_line("h1:100:100", "AllReduce", 1024) +
                            "h1:100:100 [0] NCCL INFO AllReduce 4096 Bytes -> Algo 1 proto 2 time 3\n"
                            "h1:100:100 [0] NCCL INFO AllReduce: 4096 Bytes -> Algo 99 proto 2 time 3\n"
                            "h1:100:100 [0] NCCL INFO AllReduce: 12x Bytes -> Algo RING proto LL channel{Lo..Hi}={0..0}\n" +
                            call_line("h1:100:100", "AllReduce", 1024, "1"));
  EXPECT_EQ(r.stats.skipped_lines, 3);
  EXPECT_EQ(r.stats.first_skipped_line, 3);
  EXPECT_EQ(r.stats.call_lines, 2);
  EXPECT_EQ(r.stats.lines, 6);
}

// NCCL 2.26+ timestamps: the key is behind them. On 8646a77 each second made its own process.
TEST(NcclLogForms, TimestampsDoNotSplitAProcess) {
  std::string log = "[2025-06-30 14:02:09] " + kInit;
  for (int s = 10; s < 14; ++s) log += "[2025-06-30 14:02:" + std::to_string(s) + "] " + call_line("h1:100:100", "AllReduce", 1024);
  const Imported r = import(log);
  ASSERT_EQ(r.workload.communicators.size(), 1u);
  EXPECT_EQ(r.workload.communicators[0].id, "0xabc");
  EXPECT_EQ(r.workload.communicators[0].calls.at(0).calls, 4u);
  EXPECT_EQ(r.stats.unmapped_calls, 0);
}

// mpirun --tag-output, torchrun's [rankN]: and Ray's (RayWorker pid=..., ip=...) prefixes.
TEST(NcclLogForms, LauncherPrefixesKeepEachProcessItsOwn) {
  const std::string init1 = "h2:200:200 [0] NCCL INFO comm 0x10 rank 1 nranks 2 cudaDev 0 nvmlDev 0 busId 1000 commId 0xabc - Init COMPLETE\n";
  const Imported r = import("[1,0]<stdout>:" + kInit + "(RayWorker pid=200, ip=10.0.0.2) " + init1 + "[1,0]<stdout>:" +
                            call_line("h1:100:100", "AllReduce", 64) + "(RayWorker pid=200, ip=10.0.0.2) " +
                            call_line("h2:200:200", "AllReduce", 64) + "[rank0]:" +
                            "h1:100:100 [0] NCCL INFO AllReduce: 256 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..0}\n");
  ASSERT_EQ(r.workload.communicators.size(), 1u);
  const Communicator& c = r.workload.communicators[0];
  EXPECT_EQ(c.id, "0xabc");
  EXPECT_EQ(c.ranks, (std::vector<int>{0, 1}));
  ASSERT_EQ(c.calls.size(), 1u);
  EXPECT_EQ(c.calls[0].calls, 1u);
  ASSERT_EQ(c.calls[0].applied.size(), 1u);
  EXPECT_EQ(c.calls[0].applied[0].calls, 1u);
  EXPECT_EQ(r.stats.skipped_lines, 0);
}

// NCCL 2.4 in a container whose gethostname gave "": the key is ":pid:tid" (tensorflow#34375).
// Each process stays its own; a colon that ends a prefix is still no key.
TEST(NcclLogForms, AnEmptyHostNameIsStillAKey) {
  const std::string init1 = ":5203:5684 [0] NCCL INFO comm 0x20 rank 1 nranks 2 cudaDev 1 nvmlDev 1 - Init COMPLETE\n";
  const Imported r = import(":5202:5683 [0] NCCL INFO comm 0x10 rank 0 nranks 2 cudaDev 0 nvmlDev 0 - Init COMPLETE\n" + init1 +
                            call_line(":5202:5683", "AllReduce", 64, "0", "0x10") + call_line(":5203:5684", "AllReduce", 64, "0", "0x20"));
  EXPECT_EQ(r.stats.skipped_lines, 0);
  EXPECT_EQ(r.stats.call_lines, 2);
  ASSERT_EQ(r.workload.communicators.size(), 1u);  // matched across the two processes by nranks and calls
  EXPECT_EQ(r.workload.communicators[0].ranks, (std::vector<int>{0, 1}));
  const Imported prefixed = import("[1,0]<stdout>::5202:5683 [0] NCCL INFO AllReduce: opCount 0 sendbuff 0x1 recvbuff 0x2 count 8 "
                                   "datatype 7 op 0 root 0 comm 0x3 [nranks=2] stream 0x4\n");
  EXPECT_EQ(prefixed.stats.call_lines, 0);
  EXPECT_EQ(prefixed.stats.skipped_lines, 1);
}

// A line pasted without its key: counted as skipped unless the caller says the file is NCCL's log.
TEST(NcclLogForms, LinesWithoutAKeyAreTakenWhenTheFormatIsGiven) {
  const std::string log = "NCCL INFO AllReduce: opCount 0 sendbuff 0x1 recvbuff 0x2 count 8 datatype 7 op 0 root 0 comm 0x3 [nranks=2] stream 0x4\n"
                          "[0] NCCL INFO AllReduce: opCount 1 sendbuff 0x1 recvbuff 0x2 count 8 datatype 7 op 0 root 0 comm 0x3 [nranks=2] stream 0x4\n";
  const Imported automatic = import(log);
  EXPECT_EQ(automatic.stats.call_lines, 0);
  EXPECT_EQ(automatic.stats.skipped_lines, 2);
  const Imported told = import(log, {"pasted.log", true});
  EXPECT_EQ(told.stats.call_lines, 2);
  EXPECT_EQ(only_call(told.workload).calls, 2u);
  EXPECT_TRUE(looks_like_nccl_log(log));
}

// Issue 43 item 5: NCCL prints gethostname()'s bytes; a host named "héllo", or "ip……" as a
// terminal shows a cut name, dropped every line of its process.
TEST(NcclLogForms, AHostNameBeyondAsciiIsAKey) {
  const std::string init = " [0] NCCL INFO comm 0x10 rank R nranks 2 cudaDev 0 nvmlDev 0 busId 1000 commId 0xabc - Init COMPLETE\n";
  std::string log;
  int rank = 0;
  for (const std::string key : {"h\xc3\xa9llo:100:100", "ip\xe2\x80\xa6\xe2\x80\xa6:200:200"}) {
    std::string line = key + init;
    line.replace(line.find("rank R"), 6, "rank " + std::to_string(rank++));
    log += line + call_line(key, "AllReduce", 64) + call_line(key, "AllReduce", 64, "1");
  }
  const Imported r = import(log);
  EXPECT_EQ(r.stats.skipped_lines, 0);
  ASSERT_EQ(r.workload.communicators.size(), 1u);
  EXPECT_EQ(r.workload.communicators[0].ranks, (std::vector<int>{0, 1}));
  EXPECT_EQ(only_call(r.workload).calls, 2u);
  // Without an Init line the process still names its communicator, in NCCL's own characters.
  const Imported unmapped = import(call_line("h\xc3\xa9llo:100:100", "AllReduce", 64));
  ASSERT_EQ(unmapped.workload.communicators.size(), 1u);
  EXPECT_EQ(unmapped.workload.communicators[0].id, "unmapped:h??llo:100/0x10");
}

// Call lines pasted bare, without the key or "NCCL INFO", were refused even with --format
// nccl-log; they are that file's process's lines there, and ignored otherwise.
TEST(NcclLogForms, BareCallLinesAreReadWhenTheFormatIsGiven) {
  const std::string log =
      "AllGather: opCount 0 sendbuff 0x1 recvbuff 0x2 count 4096 datatype 9 op 0 root 0 comm 0x3 [nranks=2] stream 0x4\n"
      "  AllGather: opCount 1 sendbuff 0x1 recvbuff 0x2 count 4096 datatype 9 op 0 root 0 comm 0x3 [nranks=2] stream 0x4\n";
  const Imported told = import(log, {"pasted.log", true});
  EXPECT_EQ(told.stats.call_lines, 2);
  EXPECT_EQ(only_call(told.workload).calls, 2u);
  EXPECT_EQ(only_call(told.workload).shape.dtype, DType::BFloat16);
  const Imported automatic = import(log);
  EXPECT_EQ(automatic.stats.call_lines, 0);
  EXPECT_EQ(automatic.stats.skipped_lines, 0);  // not NCCL's lines unless the caller says so
}

// Call lines cut, wrapped or elided on a terminal: counted apart, with the first one's line
// and what it lacked, so that "no per-call lines" can say why.
TEST(NcclLogForms, CallLinesThatCannotBeReadSayWhy) {
  const std::string head = "h1:100:100 [0] NCCL INFO AllReduce: opCount 0 sendbuff 0x1 recvbuff 0x2 count 64 datatype 7 op 0 root 0 comm ";
  const Imported r =
      import(kInit + head + "0x... [nranks=2] stream 0x...\n" + head + "0x10\n" + head.substr(0, head.size() - 12) +
             "\nh1:100:100 [0] NCCL INFO AllReduce: opCount 0 sendbuff 0x1 recvbuff 0x2 count 64 datatype 77 op 0 root 0 comm "
             "0x10 [nranks=2] stream 0x3\n" +
             "h1:100:100 [0] NCCL INFO AllReduce 4096 Bytes -> Algo 1 proto 2 time 3\n");
  EXPECT_EQ(r.stats.call_lines, 0);
  EXPECT_EQ(r.stats.skipped_call_lines, 4);
  EXPECT_EQ(r.stats.skipped_lines, 5);
  EXPECT_EQ(r.stats.first_skipped_call_line, 2);
  EXPECT_EQ(r.stats.first_skipped_call_reason, "its comm pointer '0x...' is not NCCL's hex pointer (elided or cut)");
  EXPECT_EQ(r.stats.first_skip_reason, r.stats.first_skipped_call_reason);
  const auto reason = [](const std::string& line) {
    const Imported one = import(line + "\n");
    return one.stats.first_skipped_call_reason;
  };
  EXPECT_EQ(reason(head + "0x10"), "it has no [nranks=N] after its comm pointer (cut or wrapped)");
  EXPECT_EQ(reason(head.substr(0, head.size() - 12)), "it has no root (cut or wrapped)");
  EXPECT_EQ(reason(head.substr(0, head.size() - 6)), "it has no comm pointer (cut or wrapped)");
  EXPECT_EQ(reason(head.substr(0, head.size() - 1)), "it stops after 'comm' (cut or wrapped)");
  EXPECT_EQ(
      reason("h1:1:1 [0] NCCL INFO AllReduce: opCount 0 sendbuff 0x1 recvbuff 0x2 count 64 datatype 77 op 0 root 0 comm 0x1 [nranks=2]"),
      "its datatype '77' is none NCCL has");
  EXPECT_EQ(reason("h1:1:1 [0] NCCL INFO Allreduce: opCount 0 sendbuff 0x1"), "'Allreduce:' is no NCCL function");
  EXPECT_EQ(
      reason("NCCL INFO AllReduce: opCount 0 sendbuff 0x1 recvbuff 0x2 count 8 datatype 7 op 0 root 0 comm 0x3 [nranks=2] stream 0x4"),
      "it has no host:pid:tid key before NCCL INFO (pasted without it: --format nccl-log reads such lines)");
}

// Two ranks' files pasted without keys, sharing a comm pointer: each file is the process the
// caller names, so they stay two processes, not one communicator with every call twice.
TEST(NcclLogForms, LinesWithoutKeysAreTheProcessTheCallerNames) {
  const std::string log =
      "NCCL INFO AllReduce: opCount 0 sendbuff 0x1 recvbuff 0x2 count 8 datatype 7 op 0 root 0 comm 0x3 [nranks=2] stream 0x4\n";
  WorkloadBuilder b;
  for (const std::string process : {"file1", "file2"}) {
    std::istringstream in(log);
    import_nccl_log(in, b, {process + ".log", true, process});
  }
  const Workload w = b.finish("nccl-log", {});
  ASSERT_EQ(w.communicators.size(), 2u);
  EXPECT_EQ(w.communicators[0].id, "unmapped:file1/0x3");
  EXPECT_EQ(w.communicators[1].id, "unmapped:file2/0x3");
  EXPECT_EQ(w.communicators[0].calls.at(0).calls, 1u);
}

// Past the bound on processes and communicators the import stops, naming the file and line.
TEST(NcclLogForms, TooManyCommunicatorsIsRefusedNamingTheLine) {
  std::string log;
  log.reserve(std::size_t{120} * (max_workload_shapes + 2));
  for (std::size_t i = 0; i <= max_workload_shapes; ++i)
    log += "h1:100:100 [0] NCCL INFO comm 0x" + std::to_string(i + 16) + " rank 0 nranks 2 cudaDev 0 busId 1 - Init COMPLETE\n";
  std::istringstream in(log);
  WorkloadBuilder b;
  try {
    import_nccl_log(in, b, {"big.log", false});
    FAIL() << "not refused";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what_only()).find("big.log line 200000"), std::string::npos) << e.what_only();
  }
}

// NCCL 2.27+ symmetric kernels print no algorithm or protocol; the line still says the call
// was launched alone (on 8646a77 the two lone calls below, both opCount 0, were one group).
TEST(NcclLogForms, SymmetricKernelLinesCloseTheCallWithoutAChoice) {
  const std::string tuning = "h1:100:100 [0] NCCL INFO AllReduce [Symmetric]: 256 Bytes -> Kernel AllReduce_ST nchannels 4 nthreads 512 nWorks 1\n";
  const Imported r = import(kInit + call_line("h1:100:100", "AllReduce", 64) + tuning + call_line("h1:100:100", "AllReduce", 64) + tuning);
  const CallStats& s = only_call(r.workload);
  EXPECT_EQ(s.calls, 2u);
  EXPECT_TRUE(s.applied.empty());
  EXPECT_TRUE(r.workload.communicators[0].groups.empty());
  EXPECT_EQ(r.stats.skipped_lines, 0);
}

// The builder's bound on distinct shapes names the line too.
TEST(NcclLogForms, TooManyShapesIsRefusedNamingTheLine) {
  std::string log = kInit;
  log.reserve(std::size_t{170} * (max_workload_shapes + 2));
  for (std::size_t i = 0; i <= max_workload_shapes; ++i) log += call_line("h1:100:100", "AllReduce", i + 1, "0");
  std::istringstream in(log);
  WorkloadBuilder b;
  try {
    import_nccl_log(in, b, {"shapes.log", false});
    FAIL() << "not refused";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what_only()).find("shapes.log line 200002: "), std::string::npos) << e.what_only();
  }
}

}  // namespace
}  // namespace cctune::workload
