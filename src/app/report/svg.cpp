#include "app/report/svg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/text.hpp"
#include "core/units.hpp"

namespace cctune::app::svg {

namespace {

// Tableau 10: distinguishable, and readable on white.
constexpr const char* palette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                   "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
constexpr int palette_size = sizeof palette / sizeof palette[0];

// Plot geometry in px; the legend sits right of the plot area.
constexpr double width = 760, height = 340;
constexpr double left = 70, right = 560, top = 34, bottom = 290;

std::string px(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string text(double x, double y, std::string_view s, std::string_view attrs = {}) {
  return "<text x=\"" + px(x) + "\" y=\"" + px(y) + "\"" + (attrs.empty() ? "" : " ") +
         std::string(attrs) + ">" + escape(s) + "</text>";
}

}  // namespace

std::string escape(std::string_view s) { return text::html_text(s); }

std::string format_number(double v, int digits) {
  if (!std::isfinite(v)) return "?";
  if (v == 0) return "0";  // also turns -0 into 0
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

std::vector<Tick> log2_ticks(double min_bytes, double max_bytes, int max_ticks) {
  min_bytes = std::max(min_bytes, 1.0);
  max_bytes = std::max(max_bytes, min_bytes);
  max_ticks = std::max(max_ticks, 1);
  const int e_lo = static_cast<int>(std::floor(std::log2(min_bytes)));
  const int e_hi = static_cast<int>(std::ceil(std::log2(max_bytes)));
  int stride = 1;
  // Multiples of the stride keep ticks on round sizes (1 KiB, 1 MiB with stride 2, 4...).
  auto count = [&](int s) {
    int n = 0;
    for (int e = e_lo; e <= e_hi; ++e) n += (e % s == 0);
    return n;
  };
  while (count(stride) > max_ticks) stride *= 2;
  std::vector<Tick> ticks;
  for (int e = e_lo; e <= e_hi; ++e) {
    if (e % stride != 0) continue;
    const double v = std::ldexp(1.0, e);
    ticks.push_back({v, format_size(static_cast<std::uint64_t>(v))});
  }
  if (ticks.empty()) {  // a stride larger than the range: show the ends
    ticks.push_back({std::ldexp(1.0, e_lo), format_size(static_cast<std::uint64_t>(std::ldexp(1.0, e_lo)))});
  }
  return ticks;
}

std::vector<Tick> linear_ticks(double lo, double hi, int target) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) lo = 0, hi = 1;
  if (hi < lo) std::swap(lo, hi);
  double span = hi - lo;
  if (span <= 0) span = lo != 0 ? std::fabs(lo) : 1;
  const double raw = span / std::max(target, 1);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double norm = raw / mag;
  const double step = (norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10) * mag;
  const long first = static_cast<long>(std::floor(lo / step + 1e-9));
  long last = static_cast<long>(std::ceil(hi / step - 1e-9));
  if (last <= first) last = first + 1;
  std::vector<Tick> ticks;
  for (long k = first; k <= last; ++k) ticks.push_back({k * step, format_number(k * step, 4)});
  return ticks;
}

double Scale::operator()(double v) const {
  double a = domain_lo, b = domain_hi;
  if (log2) {
    v = std::log2(std::max(v, 1e-300));
    a = std::log2(std::max(a, 1e-300));
    b = std::log2(std::max(b, 1e-300));
  }
  if (b == a) return (range_lo + range_hi) / 2;
  return range_lo + (v - a) / (b - a) * (range_hi - range_lo);
}

std::string render(const LinePlot& plot) {
  // Data extents over plottable points (log axes cannot show x <= 0).
  double x_lo = INFINITY, x_hi = -INFINITY, y_hi = 0;
  for (const auto& s : plot.series)
    for (const auto& p : s.points) {
      if ((plot.x_log2 && p.x <= 0) || !std::isfinite(p.x) || !std::isfinite(p.y)) continue;
      x_lo = std::min(x_lo, p.x), x_hi = std::max(x_hi, p.x), y_hi = std::max(y_hi, p.y);
    }
  if (x_lo > x_hi) x_lo = plot.x_log2 ? 1 : 0, x_hi = plot.x_log2 ? 1024 : 1;
  if (plot.reference_y) y_hi = std::max(y_hi, *plot.reference_y);
  if (plot.y_max) y_hi = *plot.y_max;
  if (y_hi <= 0) y_hi = 1;

  const auto x_ticks = plot.x_log2 ? log2_ticks(x_lo, x_hi) : linear_ticks(x_lo, x_hi);
  const auto y_ticks = linear_ticks(0, y_hi);
  Scale sx{x_lo, x_hi, left, right, plot.x_log2};
  if (plot.x_log2 && x_lo == x_hi) sx.domain_lo = x_lo / 2, sx.domain_hi = x_hi * 2;
  const Scale sy{0, plot.y_max ? *plot.y_max : y_ticks.back().value, bottom, top, false};

  std::string o = "<svg class=\"plot\" data-plot=\"" + escape(plot.id) + "\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " +
                  px(width) + " " + px(height) + "\" width=\"" + px(width) + "\" height=\"" + px(height) + "\" role=\"img\">";
  o += "<title>" + escape(plot.title) + "</title>";
  o += text(left, 18, plot.title, "class=\"plot-title\"");
  // Axes and grid.
  for (const auto& t : y_ticks) {
    const double y = sy(t.value);
    if (y < top - 0.5) continue;
    o += "<line class=\"grid\" x1=\"" + px(left) + "\" x2=\"" + px(right) + "\" y1=\"" + px(y) + "\" y2=\"" + px(y) + "\"/>";
    o += text(left - 6, y + 4, t.label, "text-anchor=\"end\" class=\"tick\"");
  }
  for (const auto& t : x_ticks) {
    const double x = sx(t.value);
    if (x < left - 0.5 || x > right + 0.5) continue;
    o += "<line class=\"grid\" x1=\"" + px(x) + "\" x2=\"" + px(x) + "\" y1=\"" + px(top) + "\" y2=\"" + px(bottom) + "\"/>";
    o += text(x, bottom + 16, t.label, "text-anchor=\"middle\" class=\"tick\"");
  }
  o += "<line class=\"axis\" x1=\"" + px(left) + "\" x2=\"" + px(right) + "\" y1=\"" + px(bottom) + "\" y2=\"" + px(bottom) + "\"/>";
  o += "<line class=\"axis\" x1=\"" + px(left) + "\" x2=\"" + px(left) + "\" y1=\"" + px(top) + "\" y2=\"" + px(bottom) + "\"/>";
  o += text((left + right) / 2, bottom + 38, plot.x_label + (plot.x_log2 ? " (log2)" : ""), "text-anchor=\"middle\" class=\"axis-label\"");
  o += text(16, (top + bottom) / 2, plot.y_label,
            "text-anchor=\"middle\" class=\"axis-label\" transform=\"rotate(-90 16 " + px((top + bottom) / 2) + ")\"");
  if (plot.reference_y) {
    const double y = sy(*plot.reference_y);
    o += "<line class=\"reference\" x1=\"" + px(left) + "\" x2=\"" + px(right) + "\" y1=\"" + px(y) + "\" y2=\"" + px(y) + "\"/>";
  }

  int index = 0, legend_row = 0;
  for (const auto& s : plot.series) {
    std::vector<PlotPoint> pts;
    for (const auto& p : s.points)
      if (!(plot.x_log2 && p.x <= 0) && std::isfinite(p.x) && std::isfinite(p.y)) pts.push_back(p);
    const char* color = palette[index++ % palette_size];
    if (pts.empty()) continue;
    std::stable_sort(pts.begin(), pts.end(), [](const PlotPoint& a, const PlotPoint& b) { return a.x < b.x; });
    std::string d;
    for (const auto& p : pts) d += (d.empty() ? "M" : " L") + px(sx(p.x)) + " " + px(sy(p.y));
    o += "<g class=\"series\" data-series=\"" + escape(s.name) + "\">";
    o += "<path class=\"series-line\" data-series=\"" + escape(s.name) + "\" d=\"" + d + "\" stroke=\"" + color +
         "\" fill=\"none\" stroke-width=\"2\"" + (s.dashed ? " stroke-dasharray=\"6 4\"" : "") + "/>";
    for (const auto& p : pts) {
      const double x = sx(p.x), y = sy(p.y);
      o += "<circle data-point=\"1\" cx=\"" + px(x) + "\" cy=\"" + px(y) + "\" r=\"3.5\" fill=\"" + color + "\"><title>" +
           escape(p.title) + "</title></circle>";
      if (!p.mark.empty()) o += text(x + 4, y - 6, p.mark, "class=\"mark\"");
    }
    o += "</g>";
    const double ly = top + 8 + 18 * legend_row++;
    o += "<line x1=\"" + px(right + 14) + "\" x2=\"" + px(right + 38) + "\" y1=\"" + px(ly) + "\" y2=\"" + px(ly) + "\" stroke=\"" +
         color + "\" stroke-width=\"3\"" + (s.dashed ? " stroke-dasharray=\"6 4\"" : "") + "/>";
    std::string name = s.name.size() > 26 ? text::truncate_utf8(s.name, 25, "…") : s.name;  // on a character boundary
    o += text(right + 44, ly + 4, name, "class=\"legend\"");
  }
  o += "</svg>";
  return o;
}

std::string render(const Heatmap& map) {
  const std::size_t rows = map.row_labels.size(), cols = map.col_labels.size();
  // Colours span the measured range, so a slow pair stands out among fast ones.
  double v_min = INFINITY, v_max = -INFINITY;
  for (const auto& r : map.values)
    for (const auto& v : r)
      if (v && std::isfinite(*v)) v_min = std::min(v_min, *v), v_max = std::max(v_max, *v);
  if (v_min > v_max) v_min = v_max = 0;
  const std::size_t n = std::max<std::size_t>({rows, cols, 1});
  const double cell = std::clamp(480.0 / static_cast<double>(n), 6.0, 40.0);
  const bool labels = cell >= 14, numbers = cell >= 34;
  const double x0 = 80, y0 = 60;
  const double w = std::max(560.0, x0 + cell * static_cast<double>(cols) + 20), h = y0 + cell * static_cast<double>(rows) + 40;

  std::string o = "<svg class=\"heatmap\" data-plot=\"" + escape(map.id) + "\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " +
                  px(w) + " " + px(h) + "\" width=\"" + px(w) + "\" height=\"" + px(h) + "\" role=\"img\">";
  o += "<title>" + escape(map.title) + "</title>";
  o += text(10, 18, map.title, "class=\"plot-title\"");
  o += text(x0, 40, "destination →", "class=\"axis-label\"");
  for (std::size_t c = 0; c < cols && labels; ++c)
    o += text(x0 + cell * (c + 0.5), y0 - 6, map.col_labels[c], "text-anchor=\"middle\" class=\"tick\"");
  for (std::size_t r = 0; r < rows; ++r) {
    const double y = y0 + cell * r;
    if (labels) o += text(x0 - 6, y + cell / 2 + 4, map.row_labels[r], "text-anchor=\"end\" class=\"tick\"");
    for (std::size_t c = 0; c < cols; ++c) {
      const double x = x0 + cell * c;
      const double v = r < map.values.size() && c < map.values[r].size() ? map.values[r][c].value_or(NAN) : NAN;
      const std::string geometry = "x=\"" + px(x) + "\" y=\"" + px(y) + "\" width=\"" + px(cell - 1) + "\" height=\"" + px(cell - 1) + "\"";
      if (!std::isfinite(v)) {
        o += "<rect class=\"cell-missing\" " + geometry + "/>";
        continue;
      }
      // Light (low) to dark blue (high), linear in the value.
      const double t = v_max > v_min ? std::clamp((v - v_min) / (v_max - v_min), 0.0, 1.0) : 1.0;
      char color[16];
      std::snprintf(color, sizeof color, "#%02x%02x%02x", static_cast<int>(235 - 227 * t), static_cast<int>(243 - 195 * t),
                    static_cast<int>(255 - 148 * t));
      o += "<rect data-cell=\"" + std::to_string(r) + "," + std::to_string(c) + "\" " + geometry + " fill=\"" + color + "\"><title>" +
           escape(map.row_labels[r] + " → " + map.col_labels[c] + ": " + format_number(v) + " " + map.unit) + "</title></rect>";
      if (numbers)
        o += text(x + cell / 2, y + cell / 2 + 4, format_number(v, 2),
                  std::string("text-anchor=\"middle\" class=\"cell-value\"") + (t > 0.55 ? " fill=\"#fff\"" : ""));
    }
  }
  o += text(x0, y0 + cell * rows + 22, "scale: " + format_number(v_min) + " " + map.unit + " (light) to " + format_number(v_max) + " " + map.unit + " (dark); grey: not measured",
            "class=\"tick\"");
  o += "</svg>";
  return o;
}

}  // namespace cctune::app::svg
