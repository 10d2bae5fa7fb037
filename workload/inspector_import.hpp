#pragma once
// Reads NCCL Inspector's JSON lines (the profiler plugin in NVIDIA/nccl ext-profiler/inspector,
// JSON mode, output format v4.0) into a workload. Each line is one object: "header" (the
// communicator's "id" hash, "rank", "n_ranks", "nnodes"), "metadata" and "coll_perf" ("coll",
// "coll_sn", "coll_msg_size_bytes", "coll_exec_time_us", "coll_timing_source", bandwidths).
//
// What the format cannot say, and how that shows (docs/WORKLOAD.md "Capture: NCCL Inspector"):
// - Inspector samples. Its dump thread writes the last completed collective of each
//   communicator when it wakes, so calls that complete between two wake-ups are lost. coll_sn is
//   NCCL's per-communicator, per-function sequence number (from 0), so the calls lost before the
//   last one seen are known and counted in calls_not_recorded; their shapes are not.
// - No datatype, count or op: coll_msg_size_bytes is type size x the count each rank passed.
//   Shapes are kept as uint8 with that byte count, which gives NCCL's nBytes (nbytes_of) the
//   same as the real type would; reductions have no op.
// - Ranks sample differently, so their counts do not agree; per communicator the rank with the
//   fewest lost calls (then the lowest) is the one imported.
#include <cstdint>
#include <istream>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "workload/workload.hpp"

namespace cctune::workload {

// Longer lines are not Inspector's (a verbose line with 64 channels is about 14 KB).
inline constexpr std::size_t max_inspector_line = 64 * 1024;

struct InspectorImportStats {
  long lines = 0;    // non-blank lines read
  long records = 0;  // lines that became calls
  long skipped = 0;  // unreadable lines (a truncated last line, bad JSON, fields out of range) and functions we do not map
};

// Collects the records of any number of Inspector files (one per process), then adds the
// chosen rank of every communicator to a WorkloadBuilder.
class InspectorReader {
 public:
  // Reads one file's lines. Throws UsageError for a line longer than max_inspector_line.
  InspectorImportStats read(std::istream& in, const std::string& source);
  void add_to(WorkloadBuilder& builder) const;

 private:
  struct PerRank {
    int nranks = 0;
    int nnodes = 0;
    std::uint64_t records = 0;
    std::map<CallShape, CallStats> calls;
    // Per NCCL function: records seen and the highest coll_sn, for the calls lost in between.
    std::map<Collective, std::pair<std::uint64_t, std::uint64_t>> seq;
    std::uint64_t lost() const;
  };
  bool line(std::string_view text);
  std::map<std::pair<std::string, int>, PerRank> ranks_;
  std::size_t shapes_ = 0;
};

// True when the text's first line is an Inspector record (an object with "header" and "coll_perf").
bool looks_like_inspector(std::string_view head);

// Inspector output in a form this reader does not take, among the text's first lines: a
// "dump_stats" marker, or records with "coll_perf" or "p2p_perf" but no "header" (which names
// the communicator, the rank and the size every call needs), as users have pasted them with a
// format version of v4.3. What it is, in words ("format v4.3: a dump_stats marker, records
// without a header"), for a refusal that says so; nullopt for anything else.
std::optional<std::string> inspector_form_not_read(std::string_view head);

}  // namespace cctune::workload
