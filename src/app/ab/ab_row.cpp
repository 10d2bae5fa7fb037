#include "app/ab/ab_row.hpp"

#include <cstdio>

namespace cctune::app {

nlohmann::json verdict_json(const std::optional<AbRow>& row, AbUnit unit) {
  if (!row) return {{"rounds", 0}, {"speedup", 0.0}, {"ci_low", 0.0}, {"ci_high", 0.0}, {"verdict", "unmeasured"}};
  const bool ms = unit == AbUnit::Ms;
  const double scale = ms ? 1.0 / 1000 : 1.0;
  return {{ms ? "default_ms" : "default_us", row->a_median_us * scale},
          {ms ? "profile_ms" : "profile_us", row->b_median_us * scale},
          {"speedup", row->speedup},
          {"ci_low", row->ci_low},
          {"ci_high", row->ci_high},
          {"ci_confidence", row->ci_confidence},
          {"rounds", row->rounds},
          {"verdict", to_string(row->verdict)},
          {"more_pairs", row->more_pairs},
          {"note", row->note}};
}

nlohmann::json to_json(const AbEntry& entry) {
  nlohmann::json out = entry.keys;
  out.update(verdict_json(entry.row, entry.unit));
  return out;
}

std::string verdict_line(const AbRow& r, AbUnit unit) {
  const bool ms = unit == AbUnit::Ms;
  const double scale = ms ? 1.0 / 1000 : 1.0;
  const double change = r.a_median_us > 0 ? (r.b_median_us - r.a_median_us) / r.a_median_us * 100.0 : 0.0;
  char line[320];
  std::snprintf(line, sizeof line,
                "NCCL defaults %.*f %s -> profile %.*f %s (%+.1f %%); speedup %.3f [%.3f, %.3f] (%.0f %% interval) over %d pairs: %s",
                ms ? 3 : 2, r.a_median_us * scale, ms ? "ms" : "us", ms ? 3 : 2, r.b_median_us * scale, ms ? "ms" : "us", change, r.speedup,
                r.ci_low, r.ci_high, 100 * r.ci_confidence, r.rounds, to_string(r.verdict).c_str());
  return r.note.empty() ? std::string(line) : std::string(line) + "  # " + r.note;
}

std::string ab_method(std::string_view timed) {
  return "pairs of NCCL's defaults and the profile in alternating order; per pair the ratio default/profile; the speedup is "
         "their median with a distribution-free interval (order statistics); timed: " +
         std::string(timed);
}

}  // namespace cctune::app
