#pragma once
// Reads NCCL's own log of a job (NCCL_DEBUG=INFO, NCCL_DEBUG_SUBSYS including COLL; INIT for
// the communicators' ids and node counts, TUNING for the algorithm applied) into a workload.
// The per-call line is NCCL's (src/enqueue.cc, 2.18 to 2.30):
//   "<Func>: opCount <hex> sendbuff <p> recvbuff <p> count <n> datatype <d> op <o> root <r> comm <p> [nranks=<n>] stream <p>"
// A communicator's pointer is mapped to its commId and rank through its "Init COMPLETE" line
// and its node count through its "comm <p> rank <r> nRanks <n> nNodes <k>" line; pointers are
// per process (host:pid from the line prefix). A TUNING line ("<Func>: <bytes> Bytes -> Algo
// <A> proto <P> channel{Lo..Hi}={a..b}") belongs to the call just before it on the same thread.
// Consecutive calls of a communicator with the same opCount were issued in one group (NCCL
// counts groups, not calls): two or more become a workload group.
#include <istream>
#include <string>
#include <vector>

#include "workload/workload.hpp"

namespace cctune::workload {

struct LogImportStats {
  long call_lines = 0;       // per-call lines read
  long tuning_lines = 0;     // TUNING lines matched to a call
  long unmapped_calls = 0;   // calls whose communicator had no Init COMPLETE line in the log
  long skipped_lines = 0;    // call-like lines that could not be read (cut, unknown values)
};

// Adds the calls of one log (one or several processes) to `builder`. Lines longer than 64 KiB
// are skipped; nothing in a log can make it throw except running past max_workload_shapes.
LogImportStats import_nccl_log(std::istream& in, WorkloadBuilder& builder);

// True when the text looks like NCCL's log (a " NCCL INFO " line among its first lines).
bool looks_like_nccl_log(const std::string& head);

}  // namespace cctune::workload
