#include "workload/step_search.hpp"

#include <algorithm>

namespace cctune::workload::step_search {
namespace {

// Whether the `period` calls at `at` are the unit that begins at `unit`.
bool is_unit(const std::vector<std::uint32_t>& s, std::uint64_t period, std::uint64_t unit, std::uint64_t at) {
  return at + period <= s.size() &&
         std::equal(s.begin() + static_cast<std::ptrdiff_t>(unit), s.begin() + static_cast<std::ptrdiff_t>(unit + period),
                    s.begin() + static_cast<std::ptrdiff_t>(at));
}

// The units equal to the one at `unit`, before and after it, each at most kMaxExtraCalls calls
// from the next, and those apart only where kMinUnitsPerCycle units or more came since the
// last extra calls: where they begin, ascending.
Region tile(const std::vector<std::uint32_t>& s, std::uint64_t period, std::uint64_t unit) {
  // The nearest unit `direction` of the one at `at`, and the calls between them; nullopt if none.
  const auto neighbour = [&](std::uint64_t at, bool forward,
                             std::uint64_t since_extra) -> std::optional<std::pair<std::uint64_t, std::uint64_t>> {
    const std::uint64_t max_gap = since_extra >= kMinUnitsPerCycle ? kMaxExtraCalls : 0;
    for (std::uint64_t gap = 0; gap <= max_gap; ++gap) {
      if (!forward && at < period + gap) break;
      const std::uint64_t other = forward ? at + period + gap : at - period - gap;
      if (is_unit(s, period, unit, other)) return std::pair{other, gap};
    }
    return std::nullopt;
  };
  // The units next to `unit` with no extra calls between them count towards the first extra
  // calls on either side.
  const auto clean = [&](bool forward) {
    std::uint64_t units = 1;
    for (std::uint64_t at = unit; forward ? is_unit(s, period, unit, at + period) : at >= period && is_unit(s, period, unit, at - period);
         at = forward ? at + period : at - period)
      ++units;
    return units;
  };
  std::vector<std::uint64_t> before;
  std::uint64_t since_extra = clean(true);  // units since the last extra calls, the last one found included
  for (auto at = neighbour(unit, false, since_extra); at; at = neighbour(at->first, false, since_extra)) {
    since_extra = at->second > 0 ? 1 : since_extra + 1;
    before.push_back(at->first);
  }
  Region r{period, {before.rbegin(), before.rend()}};
  r.starts.push_back(unit);
  since_extra = clean(false);
  for (auto at = neighbour(unit, true, since_extra); at; at = neighbour(at->first, true, since_extra)) {
    since_extra = at->second > 0 ? 1 : since_extra + 1;
    r.starts.push_back(at->first);
  }
  return r;
}

}  // namespace

Run longest_run_of(const std::vector<std::uint32_t>& s, std::uint64_t period, std::uint64_t from, std::uint64_t to) {
  Run best{period, from, from};
  to = std::min<std::uint64_t>(to, s.size());
  if (period == 0 || to <= from + period) return best;
  std::uint64_t begin = from;  // where the run that includes the current call begins
  for (std::uint64_t i = from + period; i < to; ++i) {
    if (s[i] != s[i - period]) {
      begin = i - period + 1;
      continue;
    }
    if (i + 1 - begin >= best.length()) best = {period, begin, i + 1};  // ties: the later run, nearer the job's steady state
  }
  return best;
}

Run anchored_run_of(const std::vector<std::uint32_t>& s, std::uint64_t period) {
  const std::uint64_t n = s.size();
  Run best{period, n, n};
  if (period == 0 || n <= period) return best;
  // A run's last call must be at or after `window`: scanned from the end, each run found there
  // is followed back to its start.
  const std::uint64_t window = n > kMaxTrailingCalls + 1 ? n - kMaxTrailingCalls - 1 : 0;
  std::uint64_t i = n - 1;
  for (;;) {
    while (i >= period && i >= window && s[i] != s[i - period]) --i;
    if (i < period || i < window) break;
    const std::uint64_t last = i;
    while (i >= period && s[i] == s[i - period]) --i;
    const Run r{period, i + 1 - period, last + 1};
    if (r.length() > best.length()) best = r;  // ties: the later run (found first)
    if (i < period) break;
  }
  return best;
}

Run longest_anchored_run(const std::vector<std::uint32_t>& s, std::uint64_t max_period, std::uint64_t min_repeats) {
  Run best;
  const std::uint64_t n = s.size();
  for (std::uint64_t p = 1; p <= max_period && p * min_repeats <= n; ++p) {
    // A multiple of the best period is taken only where it covers a period more of calls: a
    // start-up call that happens to equal a step's call one multiple earlier is no longer step.
    const bool multiple = best.period != 0 && p % best.period == 0;
    if (multiple && best.length() + p > n) continue;
    const Run r = anchored_run_of(s, p);
    if (r.repeats() >= min_repeats && r.length() > best.length() && !(multiple && r.length() < best.length() + p)) best = r;
    if (best.length() == n) break;  // every call explained: a longer period can only tie
  }
  return best;
}

Region tile_run(const std::vector<std::uint32_t>& s, const Run& run) {
  // A unit ends where a call broke the run at its end, or at the end of the calls.
  Region best = tile(s, run.period, run.end - run.period);
  // A unit begins where a call broke the run at its start (the start-up's end), which is the
  // better boundary where the last step was cut short.
  if (run.begin > 0 && run.length() % run.period != 0) {
    Region from_start = tile(s, run.period, run.begin);
    if (from_start.end() - from_start.begin() >= best.end() - best.begin()) best = std::move(from_start);
  }
  return best;
}

std::optional<Run> inner_unit(const std::vector<std::uint32_t>& s, const Run& run, std::uint64_t& extra) {
  const std::uint64_t cycle = run.period;
  // Two cycles from anywhere in the run hold one whole cycle's units side by side.
  const std::uint64_t from = run.begin, to = std::min(run.end, run.begin + 2 * cycle);
  for (std::uint64_t q = 1; q * kMinUnitsPerCycle < cycle; ++q) {
    const Run r = longest_run_of(s, q, from, to);
    const std::uint64_t units = r.length() / q;
    if (units < kMinUnitsPerCycle || units * q >= cycle || cycle - units * q > kMaxExtraCalls) continue;
    extra = cycle - units * q;
    return r;
  }
  return std::nullopt;
}

std::uint64_t partial_unit_after(const std::vector<std::uint32_t>& s, const Region& region) {
  if (region.starts.empty()) return 0;
  const std::uint64_t end = region.end(), last = region.starts.back();
  std::uint64_t n = 0;
  while (n + 1 < region.period && end + n < s.size() && s[end + n] == s[last + n]) ++n;
  return n;
}

}  // namespace cctune::workload::step_search
