#pragma once
// Communicators of NCCL's log that have no commId (NCCL < 2.16 prints none; split
// communicators in 2.23-2.30 print their parent instead) are known per process only: one
// communicator of 8 ranks would otherwise become 8 communicators of one rank each, and its
// calls per step would be counted 8 times. They are matched across processes by what the log
// gives: the same nranks, different ranks, and the same first collective calls (every rank
// issues the same collectives in the same order, with the same count, type, op and root).
#include <cstdint>
#include <string>
#include <vector>

#include "workload/workload.hpp"

namespace cctune::workload::nccl_log {

struct UnmappedComm {
  std::string local_id;  // "host:pid/0xptr": its id in the reader's unmapped builder
  std::uint32_t first_seen = 0;  // order of first appearance in the log
  int rank = -1;         // -1: the log has no Init line for it
  int nranks = 0;
  std::uint64_t signature = 0;  // of its first collective calls
  std::uint32_t signed_calls = 0;
};

// Adds the calls and groups `unmapped` holds (per local id) to `into`, under one id per
// match: "unmapped:<local id of the match's first process>". Processes whose rank is unknown,
// or that issued no collective, stay on their own. Returns the number of matches of two or
// more processes.
long add_matched_communicators(const WorkloadBuilder& unmapped, const std::vector<UnmappedComm>& comms, WorkloadBuilder& into);

}  // namespace cctune::workload::nccl_log
