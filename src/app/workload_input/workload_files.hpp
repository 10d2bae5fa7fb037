#pragma once
// The one way every workload-family file is read (flight-recorder dumps, JSON and pickle;
// workload.json; the profiler half's files): the kind of file checked by fstat before anything
// could block (a FIFO is refused, never opened for a blocking read), the size bounded, the JSON
// depth- and value-budgeted before its tree is built (core/json_budget.hpp), the pickle through
// the restricted decoder (workload/pickle_decoder.hpp). docs/WORKLOAD.md.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>

#include "workload/workload.hpp"

namespace cctune::app {

enum class WorkloadDoc { FlightRecorder, Workload };

// The largest flight-recorder dump or workload.json read.
inline constexpr std::size_t max_workload_doc_bytes = std::size_t{256} << 20;

// Up to `max_bytes` from the start of a regular file, for telling formats apart. Refuses
// (UsageError) a FIFO, device or directory before reading it: the open does not block.
std::string read_file_head(const std::string& path, std::size_t max_bytes);
// Device and inode: two paths to one file have the same (the same file imported twice).
std::pair<unsigned long long, unsigned long long> file_identity(const std::string& path);

// `text` (named `source` in errors) as `kind`: depth, value budget, then the parse. A pickle
// flight-recorder dump (its first byte is pickle's PROTO opcode) is decoded to the same JSON
// its JSON form holds. Throws UsageError naming `source`.
nlohmann::json parse_workload_doc(const std::string& text, const std::string& source, WorkloadDoc kind);
// The file read bounded (read_file: regular files only) and parsed as parse_workload_doc.
nlohmann::json read_workload_doc(const std::string& path, WorkloadDoc kind);

// workload_from_json of `doc`, its errors naming `source` ("<source>: communicators[0].id ...").
workload::Workload workload_of(const nlohmann::json& doc, const std::string& source);

// True when `head` starts as a pickle does (protocol 2 or later).
bool looks_like_pickle(std::string_view head);

}  // namespace cctune::app
