// The diagnosis for people: a table and verdict on stdout, a section of report.html.
#include <fmt/format.h>

#include "app/diagnose/diagnosis_doc.hpp"
#include "app/report/escaping.hpp"
#include "app/report/svg.hpp"
#include "core/units.hpp"
#include "diagnose/evidence.hpp"

namespace cctune::app::diagnose {
namespace {

namespace dg = cctune::diagnose;

std::string num(double v, const char* unit) { return v > 0 ? dg::detail::number(v) + " " + unit : "-"; }

struct Line {
  std::string component, figure, latency, limit, note;
};

std::vector<Line> figure_lines(const DiagnosisDoc& d) {
  std::vector<Line> lines;
  for (const auto& g : d.gpus)
    lines.push_back({fmt::format("gpu  {}:{}", g.host, g.gpu), "", num(g.time_us, "us"), "",
                     fmt::format("arrives last {:.0f} %", g.last_fraction * 100)});
  for (const auto& n : d.nodes)
    lines.push_back({"node " + n.host + fmt::format(" ({} GPU)", n.gpus), num(n.busbw_gbps, "GB/s"), num(n.latency_us, "us"),
                     num(n.limit_gbps, "GB/s"), ""});
  for (const auto& p : d.pairs_measured) {
    std::string fig = num(p.busbw_gbps, "GB/s");
    if (p.probe_gbps > 0) fig += ", probe " + num(p.probe_gbps, "GB/s");
    if (!p.probe_error.empty()) fig += ", probe failed";
    lines.push_back({"pair " + p.host_a + " <-> " + p.host_b, fig, num(p.latency_us, "us"), num(p.probe_limit_gbps, "GB/s"),
                     p.probe_latency_us > 0 ? "probe latency " + num(p.probe_latency_us, "us") : ""});
  }
  if (d.all_busbw_gbps > 0 || d.all_latency_us > 0)
    lines.push_back({fmt::format("all  {} node(s)", d.hosts.size()), num(d.all_busbw_gbps, "GB/s"), num(d.all_latency_us, "us"), "", ""});
  return lines;
}

std::string suspect_title(const dg::Suspect& s) {
  switch (s.kind) {
    case dg::SuspectKind::Gpu: return fmt::format("GPU {} of {} (straggler)", s.gpu, s.host);
    case dg::SuspectKind::Node: return "node " + s.host + " (its GPUs' fabric or host)";
    case dg::SuspectKind::Nic: return nic_title(s);
    case dg::SuspectKind::Pair: return "path between " + s.host + " and " + s.peer;
  }
  return "?";
}

}  // namespace

std::string format_diagnosis(const DiagnosisDoc& d) {
  using report::terminal_text;
  std::string out = fmt::format("# cctune diagnose: {} node(s) x {} GPU(s), backend {}, sizes {} (latency) and {} (bandwidth)\n",
                                d.hosts.size(), d.gpus_per_node, d.backend, format_size(d.latency_bytes), format_size(d.bandwidth_bytes));
  if (!d.test_mode.empty()) out += "# TEST MODE " + d.test_mode + ": functional check, the figures are not performance\n";
  for (const auto& s : d.stages)
    out += s.rounds == 0 ? fmt::format("# stage {}: skipped: {}\n", s.name, s.skipped_why)
                         : fmt::format("# stage {}: {} round(s), {:.1f} s\n", s.name, s.rounds, s.duration_s);
  out += fmt::format("{:<36} {:>32} {:>13} {:>12}  {}\n", "component", "busbw at the bandwidth size", "latency size", "limit", "");
  for (const Line& l : figure_lines(d))
    out += terminal_text(fmt::format("{:<36} {:>32} {:>13} {:>12}  {}", l.component, l.figure, l.latency, l.limit, l.note)) + "\n";
  for (const auto& s : d.diagnosis.suspects) {
    out += terminal_text("SUSPECT " + suspect_title(s)) + "\n";
    for (const auto& e : s.evidence) out += "  - " + terminal_text(e) + "\n";
  }
  for (const auto& n : d.diagnosis.notes) out += "# note: " + terminal_text(n) + "\n";
  out += "verdict: " + terminal_text(verdict(d)) + "\n";
  return out;
}

std::string diagnosis_html(const DiagnosisDoc& d) {
  using app::svg::escape;
  std::string o = "<section id=\"diagnosis\"><h2>Diagnosis</h2>";
  o += "<p data-verdict=\"" + std::string(d.diagnosis.suspects.empty() ? "clean" : "suspects") + "\"><b>" + escape(verdict(d)) + "</b></p>";
  if (!d.test_mode.empty()) o += "<p>TEST MODE " + escape(d.test_mode) + ": functional check, the figures are not performance.</p>";
  if (!d.diagnosis.suspects.empty()) {
    o += "<table><tr><th>suspect</th><th>figure</th><th>median</th><th>limit</th><th>baseline</th><th>evidence</th></tr>";
    for (const auto& s : d.diagnosis.suspects) {
      std::string ev;
      for (const auto& e : s.evidence) ev += "<li>" + escape(e) + "</li>";
      o += "<tr data-kind=\"" + std::string(dg::to_string(s.kind)) + "\"><td>" + escape(suspect_title(s)) + "</td><td>" +
           escape(num(s.figure, s.unit.c_str())) + "</td><td>" + escape(num(s.median, s.unit.c_str())) + "</td><td>" +
           escape(num(s.limit, s.unit.c_str())) + "</td><td>" + escape(num(s.baseline, s.unit.c_str())) + "</td><td><ul>" + ev +
           "</ul></td></tr>";
    }
    o += "</table>";
  }
  o += "<table><tr><th>component</th><th>busbw at the bandwidth size</th><th>latency size</th><th>limit</th><th></th></tr>";
  for (const Line& l : figure_lines(d))
    o += "<tr><td>" + escape(l.component) + "</td><td>" + escape(l.figure) + "</td><td>" + escape(l.latency) + "</td><td>" +
         escape(l.limit) + "</td><td>" + escape(l.note) + "</td></tr>";
  o += "</table>";
  if (!d.diagnosis.notes.empty()) {
    o += "<ul>";
    for (const auto& n : d.diagnosis.notes) o += "<li>" + escape(n) + "</li>";
    o += "</ul>";
  }
  for (const auto& s : d.stages)
    if (s.rounds == 0) o += "<p class=\"muted\">stage " + escape(s.name) + " skipped: " + escape(s.skipped_why) + "</p>";
  return o + "</section>";
}

}  // namespace cctune::app::diagnose
