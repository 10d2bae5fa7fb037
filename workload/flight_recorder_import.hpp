#pragma once
// Reads a PyTorch flight-recorder dump (the JSON of torch._C._distributed_c10d.
// _dump_nccl_trace_json, or the file TORCH_NCCL_DUMP_ON_TIMEOUT writes as JSON) into a workload.
// Each entry names the call ("nccl:all_reduce", "nccl:_all_gather_base", ...), its tensors'
// sizes and dtypes and its process group, whose ranks pg_config lists; "duration_ms" is there
// when the job ran with TORCH_NCCL_ENABLE_TIMING=1. The dump does not say which rank wrote it:
// the caller passes it (the dump's file name ends with it by default). The reduction op is not
// recorded by the flight recorder, so reductions have no op. Point-to-point entries name their
// peers ("nccl:send 0->1"). Calls issued in one group share a sequence id (collective_seq_id,
// or p2p_seq_id for sends and receives), and a coalesced call ("allreduce_coalesced") lists one
// tensor per call: two or more calls sharing an id become a workload group.
#include <nlohmann/json.hpp>
#include <string>

#include "workload/workload.hpp"

namespace cctune::workload {

struct FlightImportStats {
  long entries = 0;   // entries read
  long skipped = 0;   // entries of calls NCCL does not make as collectives (barriers by send/recv...) or unknown names
};

// Adds the calls of one rank's dump to `builder`. Throws UsageError naming `source` and the
// field for a dump that is not one (no "pg_config", a malformed entry or process group, a size
// past max_call_bytes, a duration that is negative or not finite). A dump without "entries"
// (PyTorch leaves the list out when nothing was recorded) adds nothing. Process groups are
// named by number or, for split_group and new_group(use_local_synchronization=True), by a
// 40-digit hex hash; the communicator is "pg" and that name.
FlightImportStats import_flight_recorder(const nlohmann::json& dump, int rank, WorkloadBuilder& builder, const std::string& source);

bool looks_like_flight_recorder(const nlohmann::json& doc);

}  // namespace cctune::workload
