// The terminal view of `cctune compare`: one aligned table per collective/dtype/placement,
// then tuned-vs-default tables, mismatched settings and problems.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "app/report/escaping.hpp"
#include "app/report/printers.hpp"
#include "core/units.hpp"

namespace cctune::app::report {

std::string format_fixed(double v, int decimals) {
  if (!std::isfinite(v)) return "?";
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string format_ratio(double v) {
  if (!std::isfinite(v)) return "?";
  char buf[48];
  // Two significant digits below 0.1, in plain decimals: 0.0031x, 0.000061x.
  const int decimals = v >= 0.1 || v <= 0 ? 2 : std::min(9, 1 - static_cast<int>(std::floor(std::log10(v))));
  std::snprintf(buf, sizeof buf, "%.*fx", decimals, v);
  return buf;
}

namespace {

// Right-aligned columns sized to their widest cell; two spaces between columns.
class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header) { rows_.push_back(std::move(header)); }
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  void print(std::ostream& out, const std::string& indent = "") const {
    std::vector<std::size_t> w;
    for (const auto& r : rows_)
      for (std::size_t i = 0; i < r.size(); ++i) {
        if (w.size() <= i) w.push_back(0);
        w[i] = std::max(w[i], display_width(r[i]));
      }
    for (const auto& r : rows_) {
      std::string line = indent;
      for (std::size_t i = 0; i < r.size(); ++i) line += (i ? "  " : "") + std::string(w[i] - display_width(r[i]), ' ') + r[i];
      out << line << "\n";
    }
  }

 private:
  // Counts UTF-8 code points, so labels with non-ASCII characters stay aligned.
  static std::size_t display_width(const std::string& s) {
    return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
  }
  std::vector<std::vector<std::string>> rows_;
};

std::string status_text(const PointResult& p) { return p.status == PointStatus::Failed ? "failed" : "skipped"; }

std::string chosen(const PointResult* p) {
  if (!p || !p->chosen_algo) return "-";
  return algo_proto_name(p->chosen_algo, p->chosen_proto);
}


// Labels, hosts, settings and reasons come from input files: each is shown through
// terminal_text() (one line, no escape sequences); the layout's own newlines stay.
std::string shown(const std::string& s) { return terminal_text(s); }

void print_text_escaped(std::ostream& out, const Comparison& c) {
  if (c.series.empty()) {
    out << "No config groups in the given results.\n";
    return;
  }
  out << "Runs" << (c.series.size() > 1 ? " (ratio = busbw / " + shown(c.series[0].label) + "'s busbw)" : "") << ":\n";
  for (std::size_t i = 0; i < c.series.size(); ++i) out << "  " << shown(c.describe_series(i)) << "\n";
  out << "\nMismatched settings:" << (c.mismatches.empty() ? " none\n" : "\n");
  for (const auto& m : c.mismatches) out << "  " << shown(m) << "\n";

  bool any_best_of_tuned = false;
  for (const auto& t : c.tables) {
    out << "\n" << describe(t.key) << " (busbw in GB/s, time in us per op)\n";
    std::vector<std::string> header{"size"};
    for (std::size_t s = 0; s < c.series.size(); ++s) {
      header.push_back(shown(c.series[s].label) + " GB/s");
      header.push_back(shown(c.series[s].label) + " us");
      if (s > 0) header.push_back(shown(c.series[s].label) + "/" + shown(c.series[0].label));
    }
    TextTable table(header);
    for (const auto& row : t.rows) {
      std::vector<std::string> r{format_size(row.size_bytes)};
      for (std::size_t s = 0; s < row.cells.size(); ++s) {
        const Cell& cell = row.cells[s];
        const std::string mark = cell.best_of_tuned ? "*" : "";
        any_best_of_tuned |= cell.best_of_tuned;
        if (!cell.point) r.insert(r.end(), {"-", "-"});
        else if (cell.point->status != PointStatus::Ok) r.insert(r.end(), {status_text(*cell.point), "-"});
        else r.insert(r.end(), {format_fixed(cell.point->busbw_GBps) + mark, format_fixed(cell.point->batch_us) + mark});
        if (s > 0) r.push_back(cell.ratio ? format_ratio(*cell.ratio) : "-");
      }
      table.add(std::move(r));
    }
    table.print(out);
  }
  if (any_best_of_tuned) out << "\n* no NCCL-default point at this size: the best tuned config is shown\n";

  for (const auto& t : c.tuned) {
    out << "\nTuned vs NCCL default, " << shown(c.series[t.series].label) << ": " << describe(t.key) << "\n";
    TextTable table({"size", "default GB/s", "NCCL chose", "best tuned", "tuned GB/s", "speedup"});
    for (const auto& r : t.rows)
      table.add({format_size(r.size_bytes), r.default_point ? format_fixed(r.default_point->busbw_GBps) : "-", chosen(r.default_point),
                 describe(r.best_tuned->config), format_fixed(r.best_tuned->busbw_GBps), r.speedup ? format_ratio(*r.speedup) : "-"});
    table.print(out);
  }

  if (!c.problems.empty()) {
    out << "\nFailed and skipped:\n";
    for (const auto& p : c.problems)
      out << "  " << shown(c.series[p.series].label) << ": " << shown(p.kind) << ": " << shown(p.what) << ": " << shown(p.reason) << "\n";
  }
}

}  // namespace

void print_text(std::ostream& terminal, const Comparison& c) { print_text_escaped(terminal, c); }

}  // namespace cctune::app::report
