#include "app/workload_input/workload_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstring>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/json_budget.hpp"
#include "core/json_depth.hpp"
#include "workload/pickle_decoder.hpp"
#include "workload/workload_json.hpp"

namespace cctune::app {
namespace {

// What each kind may hold before its tree is built. A workload.json of max_workload_shapes
// shapes with their applied entries and durations is far inside; a flight-recorder dump of
// 20 000 entries with stack traces too. Eight million values stay under about 0.4 GB of tree.
const JsonBudget kWorkloadBudget{std::size_t{8} << 20, std::size_t{2} << 20};
const JsonBudget kFlightRecorderBudget{std::size_t{8} << 20, std::size_t{2} << 20};

const char* fix_for(WorkloadDoc kind) {
  return kind == WorkloadDoc::Workload ? "pass a workload.json written by cctune workload import or merge"
                                       : "pass the dump PyTorch wrote (JSON from _dump_nccl_trace_json, or the pickle of "
                                         "TORCH_NCCL_DEBUG_INFO_TEMP_FILE), unchanged";
}

// A dump's stack traces ("frames", most of a real dump's bytes) and the top-level keys the
// importer does not read are dropped while parsing: the tree holds only what is imported.
bool keep_what_the_importer_reads(int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
  if (event != nlohmann::json::parse_event_t::key) return true;
  if (depth == 1) return parsed == "version" || parsed == "pg_config" || parsed == "entries";
  return !(depth == 3 && parsed == "frames");
}

}  // namespace

std::string read_file_head(const std::string& path, std::size_t max_bytes) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; fstat refuses it before any read.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw EnvironmentError("cannot read " + path + ": " + std::strerror(errno), "check the path and its permissions");
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw UsageError(path + " is not a regular file", "pass a capture file, not a pipe, device or directory");
  }
  std::string head(max_bytes, '\0');
  std::size_t got = 0;
  while (got < max_bytes) {
    const ssize_t n = ::read(fd, head.data() + got, max_bytes - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  ::close(fd);
  head.resize(got);
  return head;
}

std::pair<unsigned long long, unsigned long long> file_identity(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw EnvironmentError("cannot read " + path + ": " + std::strerror(errno), "check the path");
  return {static_cast<unsigned long long>(st.st_dev), static_cast<unsigned long long>(st.st_ino)};
}

bool looks_like_pickle(std::string_view head) {
  return head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x80 && head[1] >= 2 && head[1] <= 5;
}

nlohmann::json parse_workload_doc(const std::string& text, const std::string& source, WorkloadDoc kind) {
  if (kind == WorkloadDoc::FlightRecorder && looks_like_pickle(text))
    return workload::decode_pickle(text, source, workload::PickleLimits{kFlightRecorderBudget.values, max_json_depth});
  if (looks_like_pickle(text))  // "not valid JSON" would hide what it is
    throw UsageError(source + " is a pickle (a PyTorch flight-recorder dump), not a cctune.workload/1 file",
                     "import it first: cctune workload import FILE --steps N -o workload.json, then pass that workload.json");
  if (json_nests_deeper_than(text))
    throw UsageError(source + " nests deeper than " + std::to_string(max_json_depth) + " levels", fix_for(kind));
  const bool dump = kind == WorkloadDoc::FlightRecorder;
  check_json_budget(
      text, source, dump ? kFlightRecorderBudget : kWorkloadBudget,
      dump ? "a flight-recorder dump holds" : "a workload.json of " + std::to_string(workload::max_workload_shapes) + " call shapes holds",
      fix_for(kind));
  nlohmann::json j = nlohmann::json::parse(text, dump ? nlohmann::json::parser_callback_t(keep_what_the_importer_reads) : nullptr, false);
  if (j.is_discarded()) throw UsageError(source + " is not valid JSON", fix_for(kind));
  return j;
}

workload::Workload workload_of(const nlohmann::json& doc, const std::string& source) {
  try {
    return workload::workload_from_json(doc);
  } catch (const UsageError& e) {
    throw UsageError(source + ": " + e.what_only(), e.fix());
  }
}

nlohmann::json read_workload_doc(const std::string& path, WorkloadDoc kind) {
  return parse_workload_doc(read_file(path, max_workload_doc_bytes), path, kind);
}

}  // namespace cctune::app
