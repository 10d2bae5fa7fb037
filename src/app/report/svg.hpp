#pragma once
// A tiny SVG plotting kit for the HTML report: axes (log2 byte sizes or linear), line
// plots with hover titles, and a heatmap. Output is plain inline SVG text with data-*
// attributes on plots, lines, points and cells, so tests (and users' scripts) can find them.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cctune::app::svg {

// Escapes text for XML/HTML content and attribute values (& < > " ').
std::string escape(std::string_view text);

struct Tick {
  double value = 0;   // in data units (bytes for size axes)
  std::string label;
};

// Power-of-two ticks covering [min_bytes, max_bytes], thinned to at most max_ticks by
// stepping the exponent (every 2nd, 4th... power); labels "8 B", "1 KiB", "64 MiB".
std::vector<Tick> log2_ticks(double min_bytes, double max_bytes, int max_ticks = 9);

// "Nice" ticks (1, 2, 5 x 10^k steps) covering [lo, hi]; about `target` of them.
std::vector<Tick> linear_ticks(double lo, double hi, int target = 5);

// Maps data values onto pixels; log2 scales take log2 of the value first.
struct Scale {
  double domain_lo = 0, domain_hi = 1;
  double range_lo = 0, range_hi = 1;
  bool log2 = false;
  double operator()(double v) const;
};

// Formats a number for labels and titles with `digits` significant digits ("0.25", "1.2e+03").
std::string format_number(double v, int digits = 3);

struct PlotPoint {
  double x = 0, y = 0;
  std::string title;   // hover text (<title>)
  std::string mark;    // optional short text drawn beside the point (e.g. "ring/LL")
};

struct PlotSeries {
  std::string name;
  std::vector<PlotPoint> points;
  bool dashed = false;
};

struct LinePlot {
  std::string id;       // data-plot attribute, e.g. "busbw-allreduce-float32"
  std::string title;
  std::string x_label = "message size";
  std::string y_label;
  bool x_log2 = true;   // x values are byte sizes on a log2 axis
  std::optional<double> reference_y;  // a dashed horizontal line (speedup 1.0, 100 %)
  std::optional<double> y_max;        // fixed top of the y axis (e.g. 100 %)
  std::vector<PlotSeries> series;
};

// One <svg class="plot" data-plot=ID> with one <path data-series=NAME> per series that has
// points, one <circle data-point> per point, and a legend.
std::string render(const LinePlot& plot);

struct Heatmap {
  std::string id;
  std::string title;
  std::string unit;     // appended to values in titles, e.g. "GB/s"
  std::vector<std::string> row_labels;   // sources
  std::vector<std::string> col_labels;   // destinations
  std::vector<std::vector<std::optional<double>>> values;  // [row][col]; nullopt: not measured
};

// One <svg class="heatmap"> with one <rect data-cell="r,c"> per measured cell.
std::string render(const Heatmap& map);

}  // namespace cctune::app::svg
