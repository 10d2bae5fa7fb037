#pragma once
// The state of one NCCL log's import, fed line by line (nccl_log_import.cpp reads the file).
//
// Groups. NCCL advances a communicator's opCount once per launched group, but only where the
// communicator has proxy operations (src/proxy.cc ncclProxyStart): over the network it does,
// over NVLink alone or on one rank it stays 0 for every call. So a run of calls of one
// communicator is a group when something closes it: the opCount changing (it then counts
// groups), or a TUNING line on the calling thread (rank 0 prints one per planned call when the
// group is launched, after the calls' own lines). A run that nothing closed (a communicator
// whose opCount never moved, on a rank that prints no TUNING lines) is taken as lone calls.
//
// Communicators without a commId (NCCL < 2.16; split communicators in 2.23-2.30) are matched
// across processes at the end by what the log gives: nranks, each process's rank and the
// sequence of its first collective calls (every rank issues the same collectives in the same
// order); the ranks of one match become one communicator, named after its first process.
//
// Bounds: processes and communicators count against max_workload_shapes together (past it
// the import is refused, naming the line); per-thread state is kept for at most kMaxThreads
// threads, the longest idle dropped first.
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "workload/nccl_log_import.hpp"
#include "workload/nccl_log_messages.hpp"

namespace cctune::workload::nccl_log {

class LogReader {
 public:
  LogReader(WorkloadBuilder& builder, const LogImportOptions& options) : builder_(builder), options_(options) {}
  // One line (without its newline); line_number is 1-based. Throws cctune::Error only past a
  // bound (without the line: the caller adds it).
  void line(std::string_view text, long line_number);
  // A line of a form read here that could not be read, and why; `call`: of the per-call form.
  void skip(long line_number, const std::string& reason, bool call = false);
  // Closes open groups and adds the communicators without a commId.
  void finish();
  LogImportStats stats;

  static constexpr std::size_t kMaxThreads = 1024;
  static constexpr std::size_t kMaxPending = 1024;  // calls per thread awaiting a TUNING line
  static constexpr std::size_t kSignatureCalls = 64;

 private:
  struct Comm {
    std::string id;       // NCCL's commId; empty: none in the log (calls go to unmapped_)
    std::string local_id; // unmapped: "host:pid/0xptr#generation", its key in unmapped_
    std::uint32_t first_seen = 0;
    int rank = -1, nranks = 0, nnodes = 0;
    std::optional<std::uint64_t> op_count;
    bool op_count_moved = false;  // the communicator counts groups
    bool launched = false;        // a TUNING line came for one of its calls since its last call
    std::vector<CallShape> run;   // calls since the last close, up to max_group_members + 1
    std::uint64_t signature = 0;  // of its first kSignatureCalls collective calls
    std::uint32_t signed_calls = 0;
  };
  struct Pending {
    Comm* comm;
    CallKindOf kind;
    std::uint64_t type_bytes;  // count x type size: 2.24+ TUNING lines
    std::uint64_t nbytes;      // NCCL's nBytes: 2.20-2.23 TUNING lines
    CallStats* stats;          // stable: the builders keep calls in node-based maps
  };
  struct Thread {
    long last_line = 0;
    std::deque<Pending> pending;
  };

  Comm& comm(std::string_view process, std::string_view ptr);
  void call(std::string_view process, std::string_view thread, const CallMessage& m, long line_number);
  void tuning(std::string_view thread, const TuningMessage& t, long line_number);
  void group_member(Comm& c, std::uint64_t op_count, const CallShape& shape);
  void close_run(Comm& c, bool is_group);
  Thread& thread_state(std::string_view thread, long line_number);
  void check_budget() const;  // throws UsageError past the bound; the caller names the line

  WorkloadBuilder& builder_;
  WorkloadBuilder unmapped_;  // calls of communicators without a commId, until they are matched
  const LogImportOptions& options_;
  std::map<std::string, std::uint32_t, std::less<>> processes_;  // "host:pid" -> index
  std::map<std::pair<std::uint32_t, std::uint64_t>, Comm> comms_;  // (process, pointer)
  std::map<std::string, Thread, std::less<>> threads_;            // "host:pid:tid"
  std::uint32_t generation_ = 0;
};

}  // namespace cctune::workload::nccl_log
