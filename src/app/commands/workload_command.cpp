// `cctune workload import FILE...` and `cctune workload merge FILE...`: a job's collectives from
// its captures (NCCL's log, PyTorch's flight recorder, NCCL Inspector) into workload.json (docs/WORKLOAD.md).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <set>
#include <string_view>

#include "app/cli/command.hpp"
#include "app/commands/commands_list.hpp"
#include "app/metrics/metrics.hpp"
#include "app/workload_input/workload_files.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/prometheus_text.hpp"
#include "core/text.hpp"
#include "workload/flight_recorder_import.hpp"
#include "workload/inspector_import.hpp"
#include "workload/nccl_log_import.hpp"
#include "workload/workload_json.hpp"

namespace cctune::app {
namespace {

namespace wl = cctune::workload;

// The rank a flight-recorder dump came from: --rank, else the digits its file name ends with
// (PyTorch names dumps <prefix><rank>).
int dump_rank(const std::string& path, int rank_flag) {
  if (rank_flag >= 0) return rank_flag;
  std::string stem = std::filesystem::path(path).stem().string();
  std::size_t end = stem.size();
  while (end > 0 && !std::isdigit(static_cast<unsigned char>(stem[end - 1]))) --end;
  std::size_t begin = end;
  while (begin > 0 && std::isdigit(static_cast<unsigned char>(stem[begin - 1]))) --begin;
  if (begin == end || end - begin > 6)
    throw UsageError("cannot tell which rank wrote " + path, "pass --rank R, or keep PyTorch's file name (it ends with the rank)");
  return std::stoi(stem.substr(begin, end - begin));
}

constexpr const char* kInspectorFix =
    "cctune reads Inspector's output format v4.0 (header, metadata and coll_perf on every line, as NCCL 2.28-2.30's Inspector "
    "writes it); import NCCL's log of the same run (NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,COLL,TUNING) or cctune's profiler files";

// Inspector output of a form the reader does not take is named as what it is, not as JSON that
// is no flight-recorder dump.
void refuse_unread_inspector(const std::string& path, const std::string& head) {
  if (const auto form = wl::inspector_form_not_read(head))
    throw UsageError(path + " is NCCL Inspector output in a form cctune does not read (" + *form + ")", kInspectorFix);
}

std::string detect_format(const std::string& path) {
  // read_file_head refuses a FIFO or device by fstat before it could block.
  const std::string head = read_file_head(path, 64 * 1024);
  if (looks_like_pickle(head)) return "flight-recorder";
  // Inspector's records are JSON objects one per line, so its test comes before the dump's '{'.
  if (wl::looks_like_inspector(head)) return "inspector";
  refuse_unread_inspector(path, head);
  const auto first = head.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && head[first] == '{') return "json";  // a dump or a workload file: import_one tells
  if (wl::looks_like_nccl_log(head)) return "nccl-log";
  if (head.find(": opCount ") != std::string::npos)
    throw UsageError(path + " holds NCCL call lines without NCCL's \"NCCL INFO\" key, as pasted from a terminal",
                     "pass --format nccl-log to read them as one process's lines");
  throw UsageError(path + " is neither NCCL's log, a PyTorch flight-recorder dump (JSON or pickle), NCCL Inspector's JSON nor a "
                          "cctune.workload/1 file",
                   "capture with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,COLL,TUNING, dump the flight recorder, or pass "
                   "Inspector's <host>-pid<pid>.log (docs/WORKLOAD.md)");
}

// NCCL logs are streamed (line by line, bounded), so they may be large; not a FIFO or device.
constexpr const char* kPromHelp = "also write calls and time per step to FILE (*.prom) for node_exporter's textfile collector";

constexpr std::uintmax_t kMaxLogBytes = std::uintmax_t{16} << 30;
constexpr double kMaxSteps = 1e9;  // as verify --job's and tune --job's --steps

std::ifstream open_stream(const std::string& path, const char* what) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw UsageError(path + " is not a regular file", std::string("pass ") + what + ", not a pipe or device");
  if (std::filesystem::file_size(path, ec) > kMaxLogBytes)
    throw UsageError(path + " is larger than 16 GiB", "capture fewer steps");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw EnvironmentError("cannot read " + path, "check the path and its permissions");
  return in;
}

// `keyless`: --format nccl-log was given, so lines without a host:pid:tid key are taken too, as
// the lines of `process` (one per file: two ranks' files stay two processes).
void import_log(const std::string& path, wl::WorkloadBuilder& builder, bool keyless, const std::string& process) {
  std::ifstream in = open_stream(path, "NCCL's log file (NCCL_DEBUG_FILE)");
  // A pickle may quote log lines (frames, descriptions): read as a log, those would be trusted.
  if (looks_like_pickle(read_file_head(path, 2)))
    throw UsageError(path + " is a pickle (a PyTorch flight-recorder dump), not NCCL's log",
                     "import it with --format flight-recorder, or leave --format out");
  const wl::LogImportStats stats = wl::import_nccl_log(in, builder, {text::terminal_text(path), keyless, process});
  // What the call-like lines lacked, from the file: escaped.
  if (stats.call_lines == 0 && stats.skipped_call_lines > 0)
    throw UsageError(path + " holds no per-call lines of NCCL that could be read: " + std::to_string(stats.skipped_call_lines) +
                         " lines look like calls, none whole (the first, line " + std::to_string(stats.first_skipped_call_line) + ": " +
                         text::terminal_text(stats.first_skipped_call_reason) + ")",
                     "import the log file NCCL wrote (NCCL_DEBUG_FILE), not lines cut, wrapped or shortened on a terminal");
  if (stats.call_lines == 0)
    throw UsageError(path + " holds no per-call lines of NCCL", "capture with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,COLL,TUNING");
  if (stats.skipped_lines > 0)
    std::cerr << "# " << text::terminal_text(path) << ": " << stats.skipped_lines
              << " call-like lines could not be read and were skipped (the first: line " << stats.first_skipped_line << ", "
              << text::terminal_text(stats.first_skip_reason) << ")\n";
}

// True when the document is a cctune.workload/1 file (the profiler half's, or an earlier import).
// Its keys are written sorted, so "schema" may come last: the whole text is looked at.
bool is_workload_text(const std::string& text) {
  return text.find(std::string("\"") + wl::workload_schema + "\"") != std::string::npos && text.find("\"communicators\"") != std::string::npos;
}

void import_dump(const std::string& path, const std::string& text, int rank, wl::WorkloadBuilder& builder) {
  const wl::FlightImportStats stats =
      wl::import_flight_recorder(parse_workload_doc(text, path, WorkloadDoc::FlightRecorder), rank, builder, path);
  if (stats.entries == 0) std::cerr << "# " << text::terminal_text(path) << ": the dump holds no entries (nothing was recorded)\n";
  else if (stats.skipped > 0)
    std::cerr << "# " << text::terminal_text(path) << ": " << stats.skipped << " of " << stats.entries
              << " entries (or their tensors) are not NCCL calls cctune reads and were skipped\n";
}

// Inspector's files (one per process) are read into one reader: which rank of a communicator
// is imported depends on all of them (inspector_import.hpp).
void import_inspector(const std::string& path, wl::InspectorReader& reader) {
  std::ifstream in = open_stream(path, "NCCL Inspector's <host>-pid<pid>.log");
  const wl::InspectorImportStats stats = reader.read(in, path);
  if (stats.records == 0) refuse_unread_inspector(path, read_file_head(path, 64 * 1024));
  if (stats.records == 0)
    throw UsageError(path + " holds no NCCL Inspector records", "pass the JSON lines Inspector wrote with NCCL_INSPECTOR_ENABLE=1 (not its Prometheus output)");
  if (stats.skipped > 0)
    std::cerr << "# " << text::terminal_text(path) << ": " << stats.skipped << " of " << stats.lines << " lines were not Inspector records and were skipped\n";
}

class WorkloadCommand : public Command {
 public:
  void setup(CLI::App& parent) override {
    add_to(parent, "workload", "a job's collectives from its captures (docs/WORKLOAD.md)");
    cmd_->require_subcommand(1);
    import_ = cmd_->add_subcommand(
        "import", "NCCL logs, PyTorch flight-recorder dumps (JSON or pickle), NCCL Inspector output or profiler files -> workload.json");
    import_->add_option("files", files_, "captures: one per process (NCCL_DEBUG_FILE) or per rank (flight recorder)")->required();
    import_->add_option("--format", format_, "auto | nccl-log | flight-recorder | inspector | workload")
        ->check(CLI::IsMember({"auto", "nccl-log", "flight-recorder", "inspector", "workload"}));
    import_->add_option("--rank", rank_, "the rank a flight-recorder dump came from (default: from its file name)")->check(CLI::NonNegativeNumber);
    import_->add_option("--steps", steps_, "training steps the capture covers (gives calls per step)");
    import_->add_option("-o,--output", output_, "where to write workload.json")->required();
    import_->add_option("--prometheus", prom_path_, kPromHelp);
    merge_ = cmd_->add_subcommand("merge", "combine per-rank workload.json files of one job");
    merge_->add_option("files", files_, "workload.json files")->required();
    merge_->add_option("-o,--output", output_, "where to write the merged workload.json")->required();
    merge_->add_option("--steps", steps_, "training steps the captures cover (default: the profiler's step cadence, where it saw one)");
    merge_->add_option("--prometheus", prom_path_, kPromHelp);
  }
  bool needs_mpi() const override { return false; }

  int run(Session&) override {
    if (!prom_path_.empty()) prometheus::check_prom_file_name(prom_path_);
    // Bounded as the other --steps flags: 1e-300 planned 6e301 calls a step, nan was dropped
    // without a word, and CLI11's range check printed the largest double in 309 digits.
    const bool steps_given = (import_->parsed() ? import_ : merge_)->count("--steps") > 0;
    if (steps_given && !(steps_ >= 1 && steps_ <= kMaxSteps))
      throw UsageError("--steps must be from 1 to 1000000000 (the training steps the captures cover)", "use e.g. --steps 50");
    const wl::Workload w = import_->parsed() ? import_files() : merge_files();
    // dump_json: source paths need not be UTF-8.
    write_file_atomically(output_, text::dump_json(wl::to_json(w), 1) + "\n");
    std::size_t left_out = 0;
    if (!prom_path_.empty()) {
      const prometheus::Exposition e = metrics::workload_metrics(w);
      metrics::write_metrics(prom_path_, e);
      left_out = e.left_out();
    }
    print_summary(w, left_out);
    return exit_code::ok;
  }

 private:
  wl::Workload import_files() const {
    wl::WorkloadBuilder builder;
    wl::InspectorReader inspector;
    std::vector<wl::Workload> documents;  // cctune.workload/1 files among the captures
    std::string formats;
    std::set<std::pair<unsigned long long, unsigned long long>> seen;
    for (std::size_t i = 0; i < files_.size(); ++i) {
      const std::string& path = files_[i];
      const std::string format = format_ == "auto" ? detect_format(path) : format_;
      // Two names of one file (a glob that matches a link or the file twice) would be summed.
      if (!seen.insert(file_identity(path)).second)
        throw UsageError(path + " is a file already given (the same file, or another path to it)", "give each capture once");
      const std::string named = import_one(path, format, "file" + std::to_string(i + 1), builder, inspector, documents);
      if (formats.find(named) == std::string::npos) formats += (formats.empty() ? "" : "+") + named;
    }
    inspector.add_to(builder);
    wl::Workload w = builder.finish(formats, files_);
    if (!documents.empty()) {
      const bool only_documents = w.communicators.empty();
      if (!only_documents) documents.push_back(w);
      w = wl::merge(documents);
      if (!only_documents) w.format = formats;  // else the documents' own ("nccl-profiler")
      w.sources = files_;
    }
    if (steps_ > 0) w.steps = steps_;
    return w;
  }
  // One capture into `builder`, `inspector` or `documents`; returns the format it was read as.
  // `process`: the process of a log's lines pasted without NCCL's key (one per file).
  std::string import_one(const std::string& path, const std::string& format, const std::string& process, wl::WorkloadBuilder& builder,
                         wl::InspectorReader& inspector, std::vector<wl::Workload>& documents) const {
    if (format == "nccl-log") import_log(path, builder, /*keyless=*/format_ == "nccl-log", process);
    if (format == "inspector") import_inspector(path, inspector);
    if (format == "nccl-log" || format == "inspector") return format;
    // A JSON document or a pickle, read once, bounded (read_file refuses special files).
    const std::string text = read_file(path, max_workload_doc_bytes);
    if (format == "workload" || (format == "json" && is_workload_text(text))) {
      documents.push_back(workload_of(parse_workload_doc(text, path, WorkloadDoc::Workload), path));
      return "workload";
    }
    import_dump(path, text, dump_rank(path, rank_), builder);
    return "flight-recorder";
  }
  wl::Workload merge_files() const {
    std::vector<wl::Workload> parts;
    for (const std::string& path : files_) parts.push_back(workload_of(read_workload_doc(path, WorkloadDoc::Workload), path));
    wl::Workload w = wl::merge(parts);
    if (steps_ > 0) w.steps = steps_;
    return w;
  }
  // Ids, sources and paths come from files: each printed line is escaped for the terminal.
  void print_summary(const wl::Workload& w, std::size_t series_left_out) const {
    for (const wl::Communicator& c : w.communicators) {
      std::uint64_t calls = 0;
      for (const auto& s : c.calls) calls += s.calls;
      std::cout << "# communicator " << text::terminal_text(c.id) << ": " << c.nranks << " ranks"
                << (c.nnodes ? ", " + std::to_string(c.nnodes) + " nodes" : "") << ", " << c.calls.size() << " call shapes, " << calls
                << " calls per rank"
                << (c.groups.empty() ? "" : ", " + std::to_string(c.groups.size()) + " groups of calls issued together")
                << " (ranks captured: " << c.ranks.size() << ")\n";
    }
    if (w.communicators.empty()) std::cout << "# no calls: the captures recorded none\n";
    if (w.steps) {
      const bool from_cadence = steps_ <= 0 && wl::steps_from_cadence(w) == w.steps;
      std::cout << "# steps: " << *w.steps << (from_cadence ? " (the profiler's step cadence)" : "") << "\n";
    } else if (std::any_of(w.communicators.begin(), w.communicators.end(),
                           [](const wl::Communicator& c) { return c.no_step.has_value(); })) {
      // Profiler files say why their calls show no step: the busiest communicator's reason.
      if (const auto why = wl::why_no_step(w, /*timed=*/false))
        std::cout << "# steps: none found: " << text::terminal_text(why->reason) << ". Fix: " << text::terminal_text(why->fix) << "\n";
    }
    std::cout << "# workload: " << text::terminal_text(output_) << "\n";
    if (!prom_path_.empty())
      std::cout << "# metrics: " << text::terminal_text(prom_path_)
                << (series_left_out ? " (" + std::to_string(series_left_out) + " series left out: more than the file's cap)" : "") << "\n";
  }

  CLI::App* import_ = nullptr;
  CLI::App* merge_ = nullptr;
  std::vector<std::string> files_;
  std::string format_ = "auto";
  int rank_ = -1;
  double steps_ = 0;
  std::string output_;
  std::string prom_path_;  // --prometheus FILE
};

}  // namespace

std::unique_ptr<Command> make_workload_command() { return std::make_unique<WorkloadCommand>(); }

}  // namespace cctune::app
