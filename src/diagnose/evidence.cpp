#include "diagnose/evidence.hpp"

#include <fmt/format.h>

namespace cctune::diagnose::detail {

std::string percent(double fraction) { return fmt::format("{:.0f} %", fraction * 100); }

std::string number(double v) {
  const double a = v < 0 ? -v : v;
  if (a >= 100) return fmt::format("{:.0f}", v);
  if (a >= 10) return fmt::format("{:.1f}", v);
  if (a >= 1 || a == 0) return fmt::format("{:.2f}", v);
  return fmt::format("{:.3g}", v);  // a slow link's 0.0124 GB/s keeps its digits
}

std::optional<std::string> limit_evidence(double figure, double limit, const Rules& rules) {
  if (!(limit > 0) || figure >= rules.limit_fraction * limit) return std::nullopt;
  return fmt::format("{} GB/s is {} of the path's physical limit ({} GB/s)", number(figure), percent(figure / limit),
                     number(limit));
}

std::optional<std::string> baseline_evidence(double figure, double baseline, Better better, const Rules& rules,
                                             const char* unit) {
  const double drop = shortfall(figure, baseline, better);
  if (drop <= rules.baseline_drop) return std::nullopt;
  return fmt::format("{} worse than its own baseline ({} {} against {} {})", percent(drop), number(figure), unit,
                     number(baseline), unit);
}

std::optional<std::string> cluster_limit_note(const char* what, const std::vector<double>& figures,
                                              const std::vector<double>& limits, const Rules& rules) {
  std::vector<double> known;
  for (double l : limits)
    if (l > 0) known.push_back(l);
  if (figures.empty() || known.size() != limits.size()) return std::nullopt;
  const double median = typical_of(figures).median;
  const double limit = typical_of(known).median;
  if (median >= rules.limit_fraction * limit) return std::nullopt;
  return fmt::format("{}: the cluster's median {} GB/s is {} of the median physical limit {} GB/s; "
                     "every member alike points at a setting or the fabric as a whole, not one component",
                     what, number(median), percent(median / limit), number(limit));
}

Suspect make_suspect(SuspectKind kind, std::string host, double figure, const Typical& group, const char* unit) {
  Suspect s;
  s.kind = kind;
  s.host = std::move(host);
  s.figure = figure;
  s.median = group.median;
  s.unit = unit;
  return s;
}

}  // namespace cctune::diagnose::detail
