#pragma once
// Reads NCCL's own log of a job (NCCL_DEBUG=INFO, NCCL_DEBUG_SUBSYS including COLL; INIT for
// the communicators' ids and node counts, TUNING for the algorithm applied) into a workload.
// The forms read, by NCCL version, are listed in nccl_log_messages.hpp; where a line's
// host:pid:tid key sits, in nccl_log_line.hpp; how calls become groups and communicators
// without a commId are matched across processes, in nccl_log_reader.hpp. docs/WORKLOAD.md
// says the same for users.
#include <istream>
#include <string>

#include "workload/workload.hpp"

namespace cctune::workload {

struct LogImportOptions {
  std::string source;    // the file's name, for errors ("FILE line N: ...")
  // --format nccl-log: lines without a host:pid:tid key are taken too, as one process's, and
  // so are call lines pasted without "NCCL INFO" in front.
  bool keyless = false;
  // The process those lines belong to: one per file, so that two ranks' files pasted without
  // keys stay two processes (a pointer both happen to print is two communicators' there).
  std::string keyless_process = "log";
};

struct LogImportStats {
  long lines = 0;            // lines read
  long call_lines = 0;       // per-call lines read
  long tuning_lines = 0;     // TUNING lines matched to a call
  long unmapped_calls = 0;   // calls whose communicator had no commId in the log
  long skipped_lines = 0;    // lines of a form read here that could not be read (cut, unknown values, no key)
  long first_skipped_line = 0;  // 1-based; 0 when none was skipped
  std::string first_skip_reason;  // why that line could not be read (quotes the line: escape it)
  long skipped_call_lines = 0;    // of the skipped lines, those of the per-call form
  long first_skipped_call_line = 0;
  std::string first_skipped_call_reason;
  long long_lines = 0;       // lines over 64 KiB, not read
  long matched_communicators = 0;  // communicators without a commId found in two or more processes
};

// Adds the calls of one log (one or several processes) to `builder`. A line that cannot be
// read is skipped and counted; only running past a bound (max_workload_shapes distinct
// shapes, or as many communicators and processes) throws, a UsageError naming the line.
LogImportStats import_nccl_log(std::istream& in, WorkloadBuilder& builder, const LogImportOptions& options = {});

// True when the text looks like NCCL's log (a "NCCL INFO " line among its first lines).
bool looks_like_nccl_log(const std::string& head);

}  // namespace cctune::workload
