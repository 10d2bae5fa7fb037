#include "app/run/csv_reporter.hpp"

#include <charconv>

#include "app/report/escaping.hpp"

namespace cctune::app {
namespace {

constexpr const char* kColumns[] = {
    "backend",   "group",  "collective", "algorithm",   "protocol",         "channels",        "graph",           "size_bytes", "count",
    "dtype",     "op",     "root",       "in_place",    "status",           "time_us",         "algbw_GBps",      "busbw_GBps", "wrong",
    "median_us", "p99_us", "iterations", "stop_reason", "chosen_algorithm", "chosen_protocol", "chosen_channels", "reason"};

// The shortest text that reads back as the same double (results.json's numbers are too).
std::string number(double v) {
  char buf[32];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, end) : std::string();
}

std::string text(std::string_view s) { return report::csv_field(std::string(s)); }

// What was observed, or an empty cell where nothing was.
template <class T>
std::string observed(const std::optional<T>& v) {
  return v ? text(to_string(*v)) : std::string();
}

}  // namespace

std::string CsvReporter::header() {
  std::string line;
  for (const char* c : kColumns) line += (line.empty() ? "" : ",") + std::string(c);
  return line;
}

std::string CsvReporter::row(const RunResult& run, const PointResult& p) {
  const bool ok = p.status == PointStatus::Ok;
  // Times and bandwidths exist only for measured points; #wrong only where data was checked.
  auto measured = [ok](double v) { return ok ? number(v) : std::string(); };
  const std::string op = is_reduction(p.collective) ? to_string(p.op) : "none";  // nccl-tests' redop column
  const std::vector<std::string> cells = {text(run.backend),
                                          text(run.group),
                                          text(to_string(p.collective)),
                                          text(to_string(p.config.algo)),
                                          text(to_string(p.config.proto)),
                                          std::to_string(p.config.channels),
                                          p.config.graph ? "1" : "0",
                                          std::to_string(p.size_bytes),
                                          std::to_string(p.count),
                                          text(to_string(p.dtype)),
                                          text(op),
                                          p.root ? std::to_string(*p.root) : "",
                                          p.in_place ? "1" : "0",
                                          text(to_string(p.status)),
                                          measured(p.batch_us),
                                          measured(p.algbw_GBps),
                                          measured(p.busbw_GBps),
                                          ok && p.wrong >= 0 ? std::to_string(p.wrong) : "",
                                          measured(p.iter_us.median),
                                          measured(p.iter_us.p99),
                                          std::to_string(p.iterations),
                                          observed(p.stop_reason),
                                          observed(p.chosen_algo),
                                          observed(p.chosen_proto),
                                          std::to_string(p.chosen_channels),
                                          text(p.reason)};
  std::string line;
  for (std::size_t i = 0; i < cells.size(); ++i) line += (i ? "," : "") + cells[i];
  return line;
}

CsvReporter::CsvReporter(const std::string& path)
    : file_(path, "remove it, or pass a new file name to --csv (cctune never overwrites a CSV file)") {
  file_.append(header() + "\n");
  sync();
}

void CsvReporter::begin_run(const RunResult& run) {
  run_ = run;
  run_.points.clear();
  for (const PointResult& p : run.points) write_row(p);
}

void CsvReporter::point(const PointResult& p) { write_row(p); }

void CsvReporter::end_collective() { sync(); }

void CsvReporter::fail_run(const std::string&) { sync(); }

void CsvReporter::finish(MetaStatus) { sync(); }

void CsvReporter::write_row(const PointResult& p) {
  write_on_rank0([&] { file_.append(row(run_, p) + "\n"); });
}

void CsvReporter::sync() {
  write_on_rank0([&] { file_.sync(); });
}

}  // namespace cctune::app
