#pragma once
// Prometheus's text exposition format (0.0.4), as node_exporter's textfile collector reads it
// (docs/METRICS.md): families in the order declared, each with its # HELP and # TYPE lines and
// its samples together; no timestamps (the collector refuses them); no series twice. Label
// values pass through text::prometheus_label_value(); names are checked, since a bad one makes
// the collector drop the whole file. Pure: the commands' metrics live in src/app/metrics.
#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

namespace cctune::prometheus {

enum class MetricType { Gauge, Counter };

// Label name and value, in the order they are written. A label whose value is empty is left
// out (Prometheus treats an empty value as no label).
using Labels = std::vector<std::pair<std::string, std::string>>;

// [a-zA-Z_:][a-zA-Z0-9_:]*
bool valid_metric_name(std::string_view name);
// [a-zA-Z_][a-zA-Z0-9_]*, not starting with "__" (reserved for Prometheus itself).
bool valid_label_name(std::string_view name);
// A sample value as the format spells it: shortest round-trip decimal, NaN, +Inf, -Inf.
std::string format_value(double v);

// More series than this in one file are left out (and the file says how many): node_exporter
// reads every series on each scrape, and Prometheus is not meant for a million of them.
inline constexpr std::size_t max_series_per_file = 100000;

class Exposition {
 public:
  explicit Exposition(std::size_t max_series = max_series_per_file) : max_series_(max_series) {}
  // Declares a family. Throws std::logic_error on an invalid or repeated name, or a help text
  // with a newline: these are the program's own constants.
  void declare(const std::string& name, MetricType type, const std::string& help);
  // One sample of a declared family. Throws std::logic_error on an undeclared family or an
  // invalid or repeated label name. A series (name and label values) already added is not
  // added again: returns false and keeps the first value. Past the file's series cap nothing is
  // added (false), and left_out() counts it.
  bool add(const std::string& name, const Labels& labels, double value);
  // The file's text; families without samples are left out. With series left out, a comment
  // line at its end says how many (the collector ignores comments).
  std::string text() const;
  std::size_t samples() const;
  std::size_t left_out() const { return left_out_; }

 private:
  struct Family {
    std::string name, help;
    MetricType type = MetricType::Gauge;
    std::vector<std::string> lines;  // "name{labels} value"
    std::unordered_set<std::string> series;  // "name{labels}", for the duplicate check
  };
  Family& family(const std::string& name);
  std::vector<Family> families_;
  std::size_t max_series_;
  std::size_t series_ = 0, left_out_ = 0;
};

// Refuses (UsageError, naming the option and the fix) a metrics file name the textfile
// collector would ignore: it reads only names ending in ".prom".
void check_prom_file_name(const std::string& path, const std::string& option = "--prometheus");

}  // namespace cctune::prometheus
