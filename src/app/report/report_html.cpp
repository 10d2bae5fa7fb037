// Assembles the self-contained HTML report from a Comparison.
#include <algorithm>
#include <functional>

#include "app/report/printers.hpp"
#include "app/report/report.hpp"
#include "app/report/report_inputs.hpp"
#include "app/report/report_plots.hpp"
#include "app/report/comparison_build.hpp"
#include "core/files.hpp"
#include "core/units.hpp"

namespace cctune::app::report {

namespace {

using svg::escape;

constexpr int max_heatmap_ranks = 256;

// No scripts, fonts or fetches: the CSP makes the browser refuse any, so a report that
// renders fine under it provably needs nothing from the network.
constexpr const char* head = R"(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>cctune report</title>
<style>
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#222;max-width:1200px}
h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;padding-bottom:4px;margin-top:32px}h3{margin-bottom:4px}
table{border-collapse:collapse;margin:6px 0;font-size:.9em}td,th{border:1px solid #ddd;padding:2px 8px;text-align:left;vertical-align:top}
table.num td{text-align:right;font-variant-numeric:tabular-nums}th{background:#f4f4f4}
table.grid td{text-align:center;font-family:monospace}.muted{color:#888}.bad{color:#b00020}
svg .grid{stroke:#e6e6e6}svg .axis{stroke:#444}svg .reference{stroke:#888;stroke-dasharray:4 3}
svg text{font-size:11px;fill:#333}svg .plot-title{font-size:13px;font-weight:600}svg .mark{font-size:9px;fill:#555}
svg .cell-missing{fill:#eee}svg .cell-value{font-size:9px}svg circle:hover{r:6}
details{margin:4px 0 12px}summary{cursor:pointer;color:#345}
.plots{display:flex;flex-wrap:wrap;gap:12px}
</style></head><body>
)";

std::string list(const std::vector<std::string>& items, const std::string& css = "") {
  std::string out = "<ul" + (css.empty() ? "" : " class=\"" + css + "\"") + ">";
  for (const auto& i : items) out += "<li>" + escape(i) + "</li>";
  return out + "</ul>";
}

std::string runs_section(const Comparison& c) {
  std::string o = "<section id=\"runs\"><h2>Runs</h2><table><tr><th>label</th><th>file</th><th>backend</th><th>group</th><th>ranks</th>"
                  "<th>nodes</th><th>status</th><th>hosts</th><th>versions</th><th>time</th></tr>";
  for (std::size_t i = 0; i < c.series.size(); ++i) {
    const Series& s = c.series[i];
    const RunResult& r = c.run_of(s);
    const Meta& m = c.results_of(s).meta;
    std::string hosts, versions;
    for (const auto& h : m.hostnames) hosts += (hosts.empty() ? "" : ", ") + h;
    for (const auto& [k, v] : m.versions) versions += (versions.empty() ? "" : ", ") + k + " " + v;
    const std::string mode = c.test_mode_of_series(i);
    const std::string status = to_string(r.status) + (m.status != MetaStatus::Complete ? " (sweep " + to_string(m.status) + ")" : "") +
                               (mode.empty() ? "" : ", TEST MODE " + mode + ": not performance");
    o += "<tr><td>" + escape(s.label) + "</td><td>" + escape(file_name(c.files[s.file], s.file)) + "</td><td>" + escape(r.backend) + "</td><td>" +
         escape(r.group) + "</td><td>" + std::to_string(r.nranks) + "</td><td>" + std::to_string(r.nnodes) + "</td><td" +
         (status != "ok" ? " class=\"bad\"" : "") + ">" + escape(status) + "</td><td>" + escape(hosts) + "</td><td>" + escape(versions) +
         "</td><td>" + escape(m.start_time) + (m.end_time.empty() ? "" : " to " + escape(m.end_time)) + "</td></tr>";
  }
  o += "</table>";
  if (c.series.empty()) o += "<p class=\"bad\">No config groups in the given results.</p>";
  o += "<h3>Mismatched settings</h3>" + (c.mismatches.empty() ? std::string("<p>none</p>") : list(c.mismatches, "bad"));
  return o + "</section>";
}

// A section with one part per results file that holds `field` (its topology, its network
// probe), rendered by `part`, or `none` when no file holds one.
std::string per_file_section(const Comparison& c, const std::string& opening, ResultSection Results::*field,
                             const std::string& none,
                             const std::function<std::string(std::size_t, const nlohmann::json&)>& part) {
  std::string o = opening;
  bool any = false;
  for (std::size_t f = 0; f < c.files.size(); ++f) {
    const ResultSection& section = c.files[f].results.*field;
    if (!section.present()) continue;
    any = true;
    o += part(f, section.json());
  }
  if (!any) o += "<p class=\"muted\">" + none + "</p>";
  return o + "</section>";
}

std::string topology_section(const Comparison& c) {
  return per_file_section(c, "<section id=\"topology\"><h2>Topology</h2>", &Results::topology,
                          "No topology recorded in these results.", [&](std::size_t f, const nlohmann::json& topo) {
                            std::string o = "<h3>" + escape(c.files[f].label) + "</h3>";
                            const auto summary = topology_summary(topo);
                            if (!summary.empty()) o += list(summary);
                            return o + "<details><summary>all topology fields</summary>" + json_to_html(topo) + "</details>";
                          });
}

std::string numbers_table(const Comparison& c, const Table& t) {
  std::string o = "<details><summary>numbers</summary><table class=\"num\"><tr><th>size</th>";
  for (std::size_t s = 0; s < c.series.size(); ++s) {
    o += "<th>" + escape(c.series[s].label) + " GB/s</th><th>" + escape(c.series[s].label) + " us</th>";
    if (s > 0) o += "<th>" + escape(c.series[s].label + "/" + c.series[0].label) + "</th>";
  }
  o += "</tr>";
  for (const auto& r : t.rows) {
    o += "<tr><td>" + format_size(r.size_bytes) + "</td>";
    for (std::size_t s = 0; s < r.cells.size(); ++s) {
      const auto* p = r.cells[s].point;
      if (!p) o += "<td>-</td><td>-</td>";
      else if (p->status != PointStatus::Ok) o += "<td class=\"bad\">" + to_string(p->status) + "</td><td>-</td>";
      else o += "<td>" + format_fixed(p->busbw_GBps) + (r.cells[s].best_of_tuned ? "*" : "") + "</td><td>" + format_fixed(p->batch_us) + "</td>";
      if (s > 0) o += "<td>" + (r.cells[s].ratio ? format_ratio(*r.cells[s].ratio) : std::string("-")) + "</td>";
    }
    o += "</tr>";
  }
  return o + "</table></details>";
}

std::string plots_sections(const Comparison& c) {
  std::string bw = "<section id=\"bandwidth\"><h2>Bus bandwidth</h2>", lat = "<section id=\"latency\"><h2>Latency (small sizes)</h2>",
              lim = "<section id=\"limits\"><h2>Fraction of the physical limit</h2>", tun = "<section id=\"tuning\"><h2>Tuned vs NCCL default</h2>";
  bool any_lat = false, any_lim = false, any_tun = false;
  std::vector<std::string> notes;
  for (const auto& t : c.tables) {
    bw += "<h3>" + escape(describe(t.key)) + "</h3>" + svg::render(busbw_plot(c, t)) + numbers_table(c, t);
    if (auto p = latency_plot(c, t)) any_lat = true, lat += svg::render(*p);
    if (auto p = limit_plot(c, t, notes)) any_lim = true, lim += svg::render(*p);
    if (auto p = speedup_plot(c, t.key)) any_tun = true, tun += svg::render(*p);
  }
  if (c.tables.empty()) bw += "<p class=\"muted\">No measured points.</p>";
  if (!any_lat) lat += "<p class=\"muted\">No run has two or more sizes up to 64 KiB.</p>";
  if (!any_lim) lim += "<p class=\"muted\">The topology gives no physical limit for these runs (MPI host-memory runs on one node have none).</p>";
  else {
    std::sort(notes.begin(), notes.end());
    notes.erase(std::unique(notes.begin(), notes.end()), notes.end());
    lim += list(notes);
  }
  if (!any_tun) tun += "<p class=\"muted\">No tuned points (config algo/proto/channels other than auto) in these results.</p>";
  return bw + "</section>" + lat + "</section>" + lim + "</section>" + tun + "</section>";
}

std::string network_part(const Comparison& c, std::size_t f, const nlohmann::json& net) {
  const NetPairs pairs = read_net_pairs(c.files[f].results);
  std::string o = "<h3>" + escape(c.files[f].label) + (pairs.transport.empty() ? "" : " (" + escape(pairs.transport) + ")") + "</h3>";
  int n = pairs.nranks;
  for (const auto& p : pairs.pairs) n = std::max({n, p.src + 1, p.dst + 1});
  if (!pairs.error.empty()) {
    o += "<p class=\"bad\">results.net is not a network probe's section: " + escape(pairs.error) + "</p>";
  } else if (!pairs.skipped_reason.empty()) {
    o += "<p class=\"muted\">The network probe was skipped: " + escape(pairs.skipped_reason) + ".</p>";
  } else if (pairs.pairs.empty()) {
    o += "<p class=\"muted\">No rank pair measured a bandwidth.</p>";
  } else if (n > max_heatmap_ranks) {  // n^2 cells would make the file huge; the fields below still list them
    o += "<p class=\"muted\">" + std::to_string(n) + " ranks: too many for a heatmap (at most " + std::to_string(max_heatmap_ranks) + ").</p>";
  } else {
    svg::Heatmap map{"net-" + std::to_string(f), "pair bandwidth at the largest size, initiator rank (rows) to responder rank (columns)",
                     "GB/s", {}, {}, {}};
    for (int i = 0; i < n; ++i) map.row_labels.push_back("rank " + std::to_string(i)), map.col_labels.push_back(std::to_string(i));
    map.values.assign(n, std::vector<std::optional<double>>(n));
    for (const auto& p : pairs.pairs) map.values[p.src][p.dst] = p.GBps;
    o += svg::render(map);
  }
  if (pairs.failed > 0) o += "<p class=\"bad\">" + std::to_string(pairs.failed) + " pair(s) failed or measured no bandwidth (their errors are in the fields below).</p>";
  return o + "<details><summary>all network fields</summary>" + json_to_html(net) + "</details>";
}

std::string network_section(const Comparison& c) {
  return per_file_section(c, "<section id=\"network\"><h2>Network probe</h2>", &Results::net,
                          "No network probe in these results.",
                          [&](std::size_t f, const nlohmann::json& net) { return network_part(c, f, net); });
}

std::string problems_section(const Comparison& c) {
  std::string o = "<section id=\"problems\"><h2>Failed and skipped</h2>";
  if (c.problems.empty()) return o + "<p>No failed groups, failed points or skipped points.</p></section>";
  o += "<table><tr><th>run</th><th>kind</th><th>what</th><th>reason</th></tr>";
  for (const auto& p : c.problems)
    o += "<tr data-problem=\"" + escape(p.kind) + "\"><td>" + escape(c.series[p.series].label) + "</td><td" +
         (p.kind == "skipped" ? "" : " class=\"bad\"") + ">" + escape(p.kind) + "</td><td>" + escape(p.what) + "</td><td>" + escape(p.reason) +
         "</td></tr>";
  return o + "</table></section>";
}

}  // namespace

std::string render_report_html(const Comparison& c, const std::string& first_sections) {
  std::string o = head;
  o += "<h1>cctune report</h1><p>" + std::to_string(c.files.size()) + (c.files.size() == 1 ? " results file, " : " results files, ") +
       std::to_string(c.series.size()) + " config group(s). busbw and algbw as nccl-tests defines them (GB = 1e9 bytes); "
       "time is the host time per operation of back-to-back batches (batch_us). Hover over a point for its details.</p>";
  o += first_sections + runs_section(c) + topology_section(c) + plots_sections(c) + network_section(c) + problems_section(c);
  std::string version;
  for (const auto& f : c.files)
    if (!f.results.meta.cctune_version.empty()) version = f.results.meta.cctune_version + " " + f.results.meta.git_sha;
  o += "<footer><p class=\"muted\">written by cctune report" + (version.empty() ? "" : " from results of cctune " + escape(version)) +
       "</p></footer></body></html>\n";
  return o;
}

std::string render_report_html(const std::vector<Results>& results, const std::vector<std::string>& labels,
                               const std::string& first_sections) {
  std::vector<InputFile> files;
  for (const auto& r : results) files.push_back({"", "", r});
  return render_report_html(build_comparison(std::move(files), CompareOptions{labels, true}), first_sections);
}

void write_report(const std::string& path, const std::vector<Results>& results, const std::vector<std::string>& labels,
                  const std::string& first_sections) {
  write_file_atomically(path, render_report_html(results, labels, first_sections));
}

}  // namespace cctune::app::report
