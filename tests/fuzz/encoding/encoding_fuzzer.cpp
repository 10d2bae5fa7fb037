// libFuzzer target for issue 24 F1/F2/F10/F11: bytes that are not UTF-8 (or any bytes) in
// every string field of a results file, a worker message, a worker's error and a space file.
// The input is an 8-byte mask, then strings separated by NUL: string field i of each template
// is replaced by the next string when bit i of the mask is set (so deep fields are reached
// while the rest stays valid). Passes when, for every input:
//   - nothing but cctune::Error escapes (no nlohmann type_error.316 from a dump),
//   - every error message and every dumped document is valid UTF-8,
//   - each sink's escaping holds: terminal and log text carry no control byte (C0, DEL, C1),
//     a CSV field is one cell, HTML text holds no markup character or control byte.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/results_json.hpp"
#include "core/text.hpp"
#include "runtime/protocol.hpp"
#include "tuner/space/plan.hpp"
#include "tuner/space/space.hpp"

namespace {

using nlohmann::json;
namespace text = cctune::text;

const char* const results_template = R"({"meta": {"argv": ["cctune", "sweep", "-o", "/tmp/x"], "cctune_version": "0.1.0",
 "end_time": "2026-11-22T11:54:32Z", "env": {"NCCL_ALGO": "ring", "CCTUNE_X": "y"}, "git_sha": "unknown", "hostnames": ["vm"],
 "schema": "cctune.results/1", "settings": {"backend": "mpi", "collectives": ["allreduce"], "dtype": "float32", "zz": "v"},
 "start_time": "2026-11-22T11:54:26Z", "status": "complete", "versions": {"cctune": "0.1.0", "mpi": "Open MPI v4.1.4"}},
 "runs": [{"backend": "mpi", "env": {"NCCL_PROTO": "simple"}, "group": "default", "nnodes": 1, "nranks": 4, "reason": "r",
  "points": [{"algbw_GBps": 0.5, "batch_us": 19.7, "busbw_GBps": 0.6, "collective": "allreduce",
   "config": {"algo": "auto", "channels": 0, "graph": false, "proto": "auto"}, "count": 2, "dtype": "float32",
   "in_place": false, "iter_us": {"count": 160, "cv": 4.2, "max": 31.0, "mean": 12.0, "median": 17.0, "min": 14.8, "p99": 29.8,
   "stddev": 5.5}, "iterations": 160, "op": "sum", "rel_noise": 0.006, "size_bytes": 8, "status": "ok", "stop_reason": "noise",
   "wrong": -1, "reason": "why"}], "status": "ok"}], "schema": "cctune.results/1"})";

const char* const message_template = R"({"type": "point", "point": 0, "reason": "r", "uid": "u", "error": {"kind": "failure",
 "what": "w", "fix": "f"}, "result": {"collective": "allreduce", "dtype": "float32", "size_bytes": 8, "status": "skipped",
 "reason": "why"}})";

const char* const space_template = R"({"schema": "cctune.space/1", "name": "quick", "description": "d",
 "collectives": ["allreduce"], "sizes": {"min": "8", "max": "64K", "factor": 8}, "dtype": "float32",
 "algorithms": ["auto", "ring"], "protocols": ["auto", "simple"], "channels": [0],
 "groups": [{"name": "default", "env": {"NCCL_X": "1"}, "description": "NCCL defaults"}],
 "measure": {"warmup": 5, "min_iters": 20, "max_time_s": 0.2, "target_noise": 0.02}, "strategy": "halving"})";

struct Input {
  std::uint64_t mask = 0;
  std::vector<std::string> strings;
  std::size_t next = 0;
  const std::string& take() { return strings[next++ % strings.size()]; }
};

void require(bool ok) {
  if (!ok) __builtin_trap();
}

// Every string value of `j`, in document order, replaced where the mask says so.
void replace_strings(json& j, Input& in, unsigned& index) {
  if (j.is_string()) {
    if ((in.mask >> (index++ % 64)) & 1) j = in.take();
  } else if (j.is_structured()) {
    for (auto& v : j) replace_strings(v, in, index);
  }
}

json with_strings(const char* tmpl, Input& in) {
  json j = json::parse(tmpl);
  unsigned index = 0;
  replace_strings(j, in, index);
  return j;
}

bool terminal_safe(const std::string& s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7f) return false;
    if (c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) <= 0x9F) return false;
  }
  return text::valid_utf8(s);
}

// Each sink's function on one string from outside.
void check_sinks(const std::string& s) {
  require(text::valid_utf8(text::sanitize_utf8(s)));
  const std::string cut = text::truncate_utf8(s, 200);
  require(text::valid_utf8(cut) && cut.size() <= 203);
  require(terminal_safe(text::terminal_text(s)));
  require(terminal_safe(text::log_text(s, 100)) && text::log_text(s, 100).size() <= 103);
  const std::string csv = text::csv_field(s);
  require(text::valid_utf8(csv));
  if (csv.find_first_of(",;\t\r\n") != std::string::npos) require(csv.front() == '"' && csv.back() == '"');
  const std::string html = text::html_text(s);
  require(text::valid_utf8(html) && html.find_first_of("<>\"'\x1b\x07") == std::string::npos);
  require(terminal_safe(text::shell_word(s)));
}

// An error from outside text: its message must survive a strict JSON dump (agree_on_errors,
// results) once sanitised, and must already be valid UTF-8 where cctune cut it.
void check_error(const cctune::Error& e) {
  require(text::valid_utf8(text::dump_json(json{{"what", e.what_only()}, {"fix", e.fix()}})));
  require(terminal_safe(text::terminal_text(e.describe())));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 8) return 0;
  Input in;
  std::memcpy(&in.mask, data, 8);
  const std::string rest(reinterpret_cast<const char*>(data) + 8, size - 8);
  for (std::size_t start = 0;;) {
    const std::size_t nul = rest.find('\0', start);
    in.strings.push_back(rest.substr(start, nul == std::string::npos ? std::string::npos : nul - start));
    if (nul == std::string::npos) break;
    start = nul + 1;
  }
  for (const auto& s : in.strings) check_sinks(s);

  // A results file (report, compare, tune, --resume read it; sweep writes it with argv and env).
  const json results = with_strings(results_template, in);
  const std::string results_text = text::dump_json(results, 1);
  require(text::valid_utf8(results_text));
  try {
    const cctune::Results r = cctune::parse_results(results_text, "fuzz.json");
    require(text::valid_utf8(text::dump_json(json(r))));
  } catch (const cctune::Error& e) {
    check_error(e);
  }
  // The same document held in memory (what the sweep builds from argv, env and workers).
  try {
    cctune::Results r = cctune::parse_results(json::parse(results_template).dump(), "template.json");
    r.meta.argv.push_back(in.take());
    r.meta.env["NCCL_FUZZ"] = in.take();
    r.runs.front().group = in.take();
    r.runs.front().reason = in.take();
    require(text::valid_utf8(text::dump_json(json(r), 1)));
  } catch (const cctune::Error& e) {
    check_error(e);
  }

  // A worker message: the raw line, and one with any bytes in its strings.
  for (const std::string& line : {in.strings.front(), text::dump_json(with_strings(message_template, in))}) {
    try {
      const cctune::runtime::Message m = cctune::runtime::decode(line);
      require(text::valid_utf8(cctune::runtime::encode(m)));
    } catch (const cctune::Error& e) {
      check_error(e);
    }
  }

  // A space file, and its --dry-run text.
  try {
    const cctune::tuner::SearchSpace space = cctune::tuner::parse_space(text::dump_json(with_strings(space_template, in)), "fuzz.json");
    cctune::tuner::SpaceContext context;
    context.nranks = 8;
    context.nnodes = 1;
    const std::string shown = cctune::tuner::format_plan(cctune::tuner::plan_space(space, context));
    for (std::size_t start = 0; start < shown.size();) {
      const std::size_t nl = shown.find('\n', start);
      require(terminal_safe(shown.substr(start, nl - start)));
      start = nl == std::string::npos ? shown.size() : nl + 1;
    }
  } catch (const cctune::Error& e) {
    check_error(e);
  }
  return 0;
}
