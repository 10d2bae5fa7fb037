#include "core/json_budget.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/error.hpp"

namespace cctune {
namespace {

using json = nlohmann::json;

// Counts, and stops the parse at the first limit passed (so the count costs no memory).
class Counter {
 public:
  explicit Counter(const JsonBudget& b) : budget_(b) {}
  std::string exceeded;  // what passed its limit, empty when none

  bool null() { return value(); }
  bool boolean(bool) { return value(); }
  bool number_integer(json::number_integer_t) { return value(); }
  bool number_unsigned(json::number_unsigned_t) { return value(); }
  bool number_float(json::number_float_t, const json::string_t&) { return value(); }
  bool string(json::string_t&) { return value(); }
  bool binary(json::binary_t&) { return value(); }
  bool start_object(std::size_t) { return open(); }
  bool start_array(std::size_t) { return open(); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(json::string_t& k) {
    if (depth_ == 1)
      section_ = std::find(budget_.sections.begin(), budget_.sections.end(), k) != budget_.sections.end() ? k : std::string();
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) { return false; }

 private:
  bool value() {
    if (++values_ > budget_.values) return over(std::to_string(budget_.values) + " values");
    if (!section_.empty() && depth_ >= 1 && ++section_values_ > budget_.section_values)
      return over(std::to_string(budget_.section_values) + " values in \"" + section_ + "\"");
    return true;
  }
  bool open() {
    if (++containers_ > budget_.containers) return over(std::to_string(budget_.containers) + " objects and arrays");
    const bool ok = value();
    ++depth_;
    return ok;
  }
  bool close() {
    if (--depth_ == 1) section_.clear();
    return true;
  }
  bool over(const std::string& what) {
    exceeded = what;
    return false;
  }
  const JsonBudget& budget_;
  std::size_t values_ = 0, containers_ = 0, section_values_ = 0;
  int depth_ = 0;
  std::string section_;
};

}  // namespace

void check_json_budget(std::string_view text, const std::string& source, const JsonBudget& budget, const std::string& kind,
                       const std::string& fix) {
  Counter counter(budget);
  json::sax_parse(text.begin(), text.end(), &counter, json::input_format_t::json, /*strict=*/false);
  if (!counter.exceeded.empty())
    throw UsageError(source + " holds more than " + counter.exceeded + ", more than " + kind +
                         " (reading it would take memory far beyond its size)",
                     fix);
}

}  // namespace cctune
