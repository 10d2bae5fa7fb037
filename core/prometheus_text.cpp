#include "core/prometheus_text.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <stdexcept>

#include "core/error.hpp"
#include "core/text.hpp"

namespace cctune::prometheus {
namespace {

bool name_char(char c, bool first, bool colon) {
  const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (colon && c == ':');
  return letter || (!first && c >= '0' && c <= '9');
}

bool valid_name(std::string_view name, bool colon) {
  if (name.empty()) return false;
  for (std::size_t i = 0; i < name.size(); ++i)
    if (!name_char(name[i], i == 0, colon)) return false;
  return true;
}

// HELP text escapes backslash and newline only (a quote is literal there).
std::string help_text(std::string_view s) {
  std::string out;
  for (const char c : text::sanitize_utf8(s)) {
    if (c == '\\') out += "\\\\";
    else out += c;
  }
  return out;
}

const char* type_name(MetricType t) { return t == MetricType::Counter ? "counter" : "gauge"; }

}  // namespace

bool valid_metric_name(std::string_view name) { return valid_name(name, true); }

bool valid_label_name(std::string_view name) { return valid_name(name, false) && !name.starts_with("__"); }

std::string format_value(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  return fmt::format("{}", v);
}

void Exposition::declare(const std::string& name, MetricType type, const std::string& help) {
  if (!valid_metric_name(name)) throw std::logic_error("invalid Prometheus metric name: " + name);
  if (help.find('\n') != std::string::npos) throw std::logic_error("help text of " + name + " holds a newline");
  for (const Family& f : families_)
    if (f.name == name) throw std::logic_error("Prometheus metric declared twice: " + name);
  families_.push_back(Family{name, help, type, {}, {}});
}

Exposition::Family& Exposition::family(const std::string& name) {
  for (Family& f : families_)
    if (f.name == name) return f;
  throw std::logic_error("Prometheus metric not declared: " + name);
}

bool Exposition::add(const std::string& name, const Labels& labels, double value) {
  Family& f = family(name);
  std::string series = name;
  std::vector<std::string_view> seen;
  bool open = false;
  for (const auto& [label, val] : labels) {
    if (!valid_label_name(label)) throw std::logic_error("invalid Prometheus label name: " + label);
    if (std::find(seen.begin(), seen.end(), label) != seen.end()) throw std::logic_error("label " + label + " repeated on " + name);
    seen.push_back(label);
    if (val.empty()) continue;
    series += open ? "," : "{";
    open = true;
    series += label + "=\"" + text::prometheus_label_value(val) + "\"";
  }
  if (open) series += "}";
  // A hash set: a workload of 200 000 shapes writes about a million series' candidates.
  if (f.series.contains(series)) return false;
  if (series_ >= max_series_) {
    ++left_out_;
    return false;
  }
  f.lines.push_back(series + " " + format_value(value));
  f.series.insert(std::move(series));
  ++series_;
  return true;
}

std::string Exposition::text() const {
  std::string out;
  for (const Family& f : families_) {
    if (f.lines.empty()) continue;
    out += "# HELP " + f.name + " " + help_text(f.help) + "\n";
    out += "# TYPE " + f.name + " " + type_name(f.type) + "\n";
    for (const std::string& line : f.lines) out += line + "\n";
  }
  if (left_out_ > 0)
    out += "# cctune: " + std::to_string(left_out_) + " series left out: more than " + std::to_string(max_series_) + " in one file\n";
  return out;
}

std::size_t Exposition::samples() const {
  std::size_t n = 0;
  for (const Family& f : families_) n += f.lines.size();
  return n;
}

void check_prom_file_name(const std::string& path, const std::string& option) {
  const auto slash = path.find_last_of('/');
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  if (base.size() <= 5 || !base.ends_with(".prom"))
    throw UsageError(option + " " + text::terminal_text(path) + ": node_exporter's textfile collector reads only files named *.prom",
                     "name the file like /var/lib/node_exporter/textfile/cctune.prom");
}

}  // namespace cctune::prometheus
