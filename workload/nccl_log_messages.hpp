#pragma once
// The messages of NCCL's log that the importer reads, one parser each; nullopt for anything
// else or anything cut or out of range (never an exception). The forms, by NCCL version
// (src/enqueue.cc and src/init.cc of each tag):
//
// COLL, 2.3 to 2.30, one per call:
//   "<Func>: opCount <hex> sendbuff <p> recvbuff <p> count <n> datatype <d> op <o> root <r> comm <p> [nranks=<n>] stream <p>"
// TUNING, rank 0 of each communicator, when NCCL plans a group (the calls' own lines come first):
//   2.20-2.22  "<bytes> Bytes -> Algo <a> proto <p> time <us>"            (no function; bytes: nBytes)
//   2.23       "<Func>: <bytes> Bytes -> Algo <a> proto <p> time <us>"    (bytes: nBytes)
//   2.24-2.30  "<Func>: <bytes> Bytes -> Algo <NAME> proto <NAME> channel{Lo..Hi}={<lo>..<hi>}"
//              (bytes: count x type size)
//   2.27+      "<Func> [Symmetric]: <bytes> Bytes -> Kernel ...", 2.29+ "<Func> [Copy Engine]: ..."
//              and 2.30 "<Func> [Hierarchical CE]: ...": no algorithm or protocol to record.
//   Numeric algorithms and protocols are NCCL_ALGO_* / NCCL_PROTO_* (src/include/device.h),
//   the same order in 2.20-2.23: Tree 0, Ring 1, CollNetDirect 2, CollNetChain 3, NVLS 4,
//   NVLSTree 5, PAT 6 (2.23 only); LL 0, LL128 1, Simple 2. In 2.20-2.23 a group's calls of
//   one function, type and op within 4x of each other's size get one line for their sum.
// INIT:
//   "[<Func>] comm <p> rank <r> nranks <n> cudaDev ... [commId 0x<id>] - Init COMPLETE"
//   (commId from 2.16; split communicators in 2.23-2.30 print "parent <p> ... color <c> key <k>",
//   some builds with a commId after it, some without); "comm <p> rank <r> nRanks <n> nNodes <k> localRanks ..." (2.20+).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "workload/nccl_names.hpp"

namespace cctune::workload::nccl_log {

struct CallMessage {
  std::string_view func;  // NCCL's name, as TUNING lines spell it
  CallKindOf kind;
  std::uint64_t op_count = 0;
  std::uint64_t count = 0;
  DType dtype = DType::Float32;
  std::optional<ReduceOp> op;
  int root = 0;
  int nranks = 0;
  std::string_view comm;  // the communicator's pointer in this process
};
std::optional<CallMessage> parse_call(std::string_view message);
// Why parse_call refuses a message of the per-call form (": opCount "), in words a user can
// act on: the first field missing or unreadable ("the comm pointer '0x...' is not NCCL's hex
// pointer: elided or cut"). Words quoted from the line are cut to 24 bytes; the caller escapes
// them for the terminal.
std::string call_problem(std::string_view message);

struct TuningMessage {
  std::string_view func;   // empty in 2.20-2.22
  std::uint64_t bytes = 0;
  bool bytes_are_nbytes = false;  // 2.20-2.23: NCCL's nBytes; 2.24+: count x type size
  bool has_choice = false;        // false for the symmetric and copy-engine kernels
  std::optional<Algorithm> algo;
  std::optional<Protocol> proto;
  int channels = 0;  // 0: not printed
};
std::optional<TuningMessage> parse_tuning(std::string_view message);

struct InitMessage {
  std::string_view comm;
  std::string_view comm_id;  // empty where the line has none (< 2.16, split communicators)
  int rank = -1;
  int nranks = 0;
};
std::optional<InitMessage> parse_init_complete(std::string_view message);

struct NodesMessage {
  std::string_view comm;
  int rank = -1, nranks = 0, nnodes = 0;
};
std::optional<NodesMessage> parse_nodes(std::string_view message);

}  // namespace cctune::workload::nccl_log
