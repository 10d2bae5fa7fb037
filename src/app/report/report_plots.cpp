// Builds the report's plots (svg::LinePlot values) from a Comparison; rendering is svg.cpp's.
#include "app/report/report_plots.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "app/report/printers.hpp"
#include "app/report/report_inputs.hpp"
#include "core/units.hpp"

namespace cctune::app::report {

namespace {

constexpr std::size_t max_config_lines = 6;           // per series; more become one "best tuned" line
constexpr std::uint64_t small_size_bytes = 64 << 10;  // the latency plot's range

std::string slug(const TableKey& k) {
  return to_string(k.collective) + "-" + to_string(k.dtype) + (k.op ? "-" + to_string(*k.op) : "") +
         (k.root ? "-root" + std::to_string(*k.root) : "") + (k.in_place ? "-inplace" : "-outofplace");
}

std::vector<const PointResult*> ok_points(const RunResult& run, const TableKey& key) {
  std::vector<const PointResult*> out;
  for (const auto& p : run.points)
    if (p.status == PointStatus::Ok && table_key_of(p) == key) out.push_back(&p);
  return out;
}

std::string chosen_text(const PointResult& p) {
  if (!p.chosen_algo) return "";
  return algo_proto_name(p.chosen_algo, p.chosen_proto) + (p.chosen_channels > 0 ? "/" + std::to_string(p.chosen_channels) + "ch" : "");
}

std::string point_title(const std::string& line, const PointResult& p) {
  std::string t = line + ", " + format_size(p.size_bytes) + ": busbw " + format_fixed(p.busbw_GBps) + " GB/s, time " +
                  format_fixed(p.batch_us) + " us, config " + describe(p.config);
  if (const auto c = chosen_text(p); !c.empty()) t += ", NCCL ran " + c;
  return t;
}

// One line per point set: y from `value`; marks where NCCL's choice changes along the line.
svg::PlotSeries make_line(const std::string& name, std::vector<const PointResult*> pts, bool dashed, double (*value)(const PointResult&),
                          bool marks) {
  std::stable_sort(pts.begin(), pts.end(), [](auto* a, auto* b) { return a->size_bytes < b->size_bytes; });
  svg::PlotSeries s{name, {}, dashed};
  std::string previous;
  for (const auto* p : pts) {
    const std::string chosen = chosen_text(*p);
    s.points.push_back({static_cast<double>(p->size_bytes), value(*p), point_title(name, *p),
                        marks && chosen != previous ? chosen : std::string()});
    previous = chosen;
  }
  return s;
}

double busbw_of(const PointResult& p) { return p.busbw_GBps; }
double time_of(const PointResult& p) { return p.batch_us; }

// NCCL-default points, one per size (first ok one), and tuned points grouped by config.
struct SplitPoints {
  std::vector<const PointResult*> defaults;
  std::map<std::string, std::vector<const PointResult*>> tuned;
};
SplitPoints split(const RunResult& run, const TableKey& key) {
  SplitPoints s;
  std::set<std::uint64_t> seen;
  for (const auto* p : ok_points(run, key)) {
    if (!p->config.is_default()) s.tuned[describe(p->config)].push_back(p);
    else if (seen.insert(p->size_bytes).second) s.defaults.push_back(p);
  }
  return s;
}

std::vector<const PointResult*> best_per_size(const std::map<std::string, std::vector<const PointResult*>>& tuned) {
  std::map<std::uint64_t, const PointResult*> best;
  for (const auto& [cfg, pts] : tuned)
    for (const auto* p : pts)
      if (!best[p->size_bytes] || p->busbw_GBps > best[p->size_bytes]->busbw_GBps) best[p->size_bytes] = p;
  std::vector<const PointResult*> out;
  for (const auto& [size, p] : best) out.push_back(p);
  return out;
}

}  // namespace

svg::LinePlot busbw_plot(const Comparison& c, const Table& t) {
  svg::LinePlot plot{"busbw-" + slug(t.key), "busbw: " + describe(t.key), "message size", "busbw (GB/s)", true, {}, {}, {}};
  for (const auto& s : c.series) {
    const SplitPoints sp = split(c.run_of(s), t.key);
    if (!sp.defaults.empty()) plot.series.push_back(make_line(s.label + (sp.tuned.empty() ? "" : " auto"), sp.defaults, false, busbw_of, true));
    if (sp.tuned.size() <= max_config_lines)
      for (const auto& [cfg, pts] : sp.tuned) plot.series.push_back(make_line(s.label + " " + cfg, pts, true, busbw_of, false));
    else
      plot.series.push_back(make_line(s.label + " best tuned", best_per_size(sp.tuned), true, busbw_of, false));
  }
  return plot;
}

std::optional<svg::LinePlot> latency_plot(const Comparison& c, const Table& t) {
  svg::LinePlot plot{"latency-" + slug(t.key), "time per op, sizes up to " + format_size(small_size_bytes) + ": " + describe(t.key),
                     "message size", "time (us)", true, {}, {}, {}};
  for (const auto& s : c.series) {
    auto sp = split(c.run_of(s), t.key);
    std::erase_if(sp.defaults, [](auto* p) { return p->size_bytes > small_size_bytes; });
    if (sp.defaults.size() >= 2) plot.series.push_back(make_line(s.label, sp.defaults, false, time_of, false));
  }
  if (plot.series.empty()) return std::nullopt;
  return plot;
}

std::optional<svg::LinePlot> limit_plot(const Comparison& c, const Table& t, std::vector<std::string>& notes) {
  svg::LinePlot plot{"limit-" + slug(t.key), "busbw as % of the physical limit: " + describe(t.key), "message size", "% of limit", true,
                     100.0, {}, {}};
  double top = 0;
  for (const auto& s : c.series) {
    const auto limit = physical_limit(c.results_of(s), c.run_of(s));
    if (!limit) continue;
    const auto sp = split(c.run_of(s), t.key);
    if (sp.defaults.empty()) continue;
    auto line = make_line(s.label + " (" + limit->what + " " + format_fixed(limit->GBps, 1) + " GB/s)", sp.defaults, false, busbw_of, false);
    for (auto& p : line.points) {
      p.y = p.y / limit->GBps * 100;
      p.title += ", " + format_fixed(p.y, 1) + " % of " + limit->what + " " + format_fixed(limit->GBps, 1) + " GB/s";
      top = std::max(top, p.y);
    }
    notes.push_back(s.label + ": limit " + format_fixed(limit->GBps, 1) + " GB/s (" + limit->what + ")");
    plot.series.push_back(std::move(line));
  }
  if (plot.series.empty()) return std::nullopt;
  if (top <= 100) plot.y_max = 100.0;
  return plot;
}

std::optional<svg::LinePlot> speedup_plot(const Comparison& c, const TableKey& key) {
  svg::LinePlot plot{"speedup-" + slug(key), "tuned vs NCCL default (time ratio): " + describe(key), "message size", "speedup (x)", true,
                     1.0, {}, {}};
  for (const auto& t : c.tuned) {
    if (!(t.key == key)) continue;
    svg::PlotSeries line{c.series[t.series].label, {}, false};
    for (const auto& r : t.rows)
      if (r.speedup)
        line.points.push_back({static_cast<double>(r.size_bytes), *r.speedup,
                               line.name + ", " + format_size(r.size_bytes) + ": " + describe(r.best_tuned->config) + " " +
                                   format_ratio(*r.speedup) + " vs auto" +
                                   (r.default_point && r.default_point->chosen_algo ? " (NCCL chose " + chosen_text(*r.default_point) + ")" : ""),
                               ""});
    if (!line.points.empty()) plot.series.push_back(std::move(line));
  }
  if (plot.series.empty()) return std::nullopt;
  return plot;
}

}  // namespace cctune::app::report
