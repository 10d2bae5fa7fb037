#include "app/report/matching.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "app/report/comparison_build.hpp"
#include "core/error.hpp"
#include "core/units.hpp"

namespace cctune::app::report {

TableKey table_key_of(const PointResult& p) {
  return {p.collective, p.dtype, p.in_place, is_reduction(p.collective) ? std::optional(p.op) : std::nullopt,
          is_rooted(p.collective) ? std::optional(p.root.value_or(0)) : std::nullopt, p.impl};
}

std::string describe(const TableKey& k) {
  std::string s = to_string(k.collective) + " " + to_string(k.dtype);
  if (k.op && *k.op != ReduceOp::Sum) s += " " + to_string(*k.op);
  if (k.root) s += " root " + std::to_string(*k.root);
  if (k.impl) s += " " + std::string(to_string_view(*k.impl));
  return s + (k.in_place ? " in-place" : " out-of-place");
}

std::string describe(const PointConfig& c) {
  if (c.is_default()) return "auto";
  std::string out;
  if (c.algo) out += to_string(*c.algo);
  if (c.proto) out.append(out.empty() ? "" : "/").append(to_string(*c.proto));
  if (c.channels != 0) out += (out.empty() ? "" : "/") + std::to_string(c.channels) + "ch";
  return out;
}

std::string Comparison::describe_series(std::size_t i) const {
  const Series& s = series[i];
  const RunResult& r = run_of(s);
  std::string out = s.label + " = " + file_name(files[s.file], s.file) + " (" + r.backend + ", group " + r.group + ", " +
                    std::to_string(r.nranks) + (r.nranks == 1 ? " rank, " : " ranks, ") + std::to_string(r.nnodes) +
                    (r.nnodes == 1 ? " node" : " nodes");
  if (r.status != RunStatus::Ok) out += ", " + to_string(r.status);
  if (const std::string mode = test_mode_of_series(i); !mode.empty()) out += ", TEST MODE " + mode + ": not performance";
  return out + ")";
}

std::string Comparison::test_mode_of_series(std::size_t i) const {
  const RunResult& r = run_of(series[i]);
  return r.test_mode.empty() ? test_mode_of(results_of(series[i])) : r.test_mode;
}

namespace {

PointIndex index_points(const Comparison& c) {
  PointIndex index(c.series.size());
  for (std::size_t s = 0; s < c.series.size(); ++s)
    for (const auto& p : c.run_of(c.series[s]).points)
      index[s][{table_key_of(p), p.size_bytes}].push_back(&p);
  return index;
}

const PointResult* best_ok(const std::vector<const PointResult*>& pts, bool tuned) {
  const PointResult* best = nullptr;
  for (const auto* p : pts)
    if (p->status == PointStatus::Ok && p->config.is_default() != tuned && (!best || p->busbw_GBps > best->busbw_GBps))
      best = p;
  return best;
}

// The NCCL-default point (ok first); else the best tuned one; else whatever was recorded.
Cell pick_cell(const std::vector<const PointResult*>& pts) {
  Cell cell;
  const PointResult* first_default = nullptr;
  for (const auto* p : pts)
    if (p->config.is_default()) {
      if (p->status == PointStatus::Ok) return Cell{p, false, {}};
      if (!first_default) first_default = p;
    }
  if (first_default) return Cell{first_default, false, {}};
  if (const auto* t = best_ok(pts, true)) return Cell{t, true, {}};
  return Cell{pts.empty() ? nullptr : pts.front(), false, {}};
}

std::string sizes_range(std::uint64_t lo, std::uint64_t hi) {
  return lo == hi ? format_size(lo) : format_size(lo) + ".." + format_size(hi);
}

std::string key_summary(const std::map<std::pair<TableKey, std::uint64_t>, std::vector<const PointResult*>>& idx) {
  std::map<TableKey, std::pair<std::uint64_t, std::uint64_t>> ranges;
  for (const auto& [k, pts] : idx) {
    auto [it, fresh] = ranges.try_emplace(k.first, k.second, k.second);
    it->second.first = std::min(it->second.first, k.second);
    it->second.second = std::max(it->second.second, k.second);
  }
  std::string out;
  for (const auto& [t, r] : ranges) out += (out.empty() ? "" : "; ") + describe(t) + " " + sizes_range(r.first, r.second);
  return out.empty() ? "no points" : out;
}

void check_overlap(const Comparison& c, const PointIndex& index) {
  if (c.series.empty() || index[0].empty()) return;
  for (std::size_t s = 1; s < c.series.size(); ++s) {
    if (index[s].empty()) continue;  // a failed group with no points: listed as a problem instead
    const bool shared = std::any_of(index[s].begin(), index[s].end(), [&](const auto& kv) { return index[0].count(kv.first) > 0; });
    if (shared) continue;
    const auto& f = c.files[c.series[s].file];
    const auto& f0 = c.files[c.series[0].file];
    throw UsageError(file_name(f, c.series[s].file) + " (" + c.series[s].label + ") has no collective/dtype/size in common with " +
                         file_name(f0, c.series[0].file) + " (" + c.series[0].label + "): " + key_summary(index[s]) + " vs " +
                         key_summary(index[0]),
                     "compare runs of the same sweep settings (-b/-e/-f, collectives, dtype)");
  }
}

std::vector<Problem> find_problems(const Comparison& c) {
  std::vector<Problem> out;
  for (std::size_t s = 0; s < c.series.size(); ++s) {
    const RunResult& r = c.run_of(c.series[s]);
    if (r.status != RunStatus::Ok)
      out.push_back({s, "group " + to_string(r.status), "group " + r.group + " (" + std::to_string(r.points.size()) + " points recorded)",
                     r.reason.empty() ? "(no reason recorded)" : r.reason});
    // Skipped points are grouped by reason: NCCL sweeps skip many combinations on purpose.
    struct Skips { long count = 0; std::uint64_t lo = UINT64_MAX, hi = 0; std::set<std::string> what; };
    std::map<std::string, Skips> skips;
    for (const auto& p : r.points) {
      const std::string what = describe(table_key_of(p)) + " " + format_size(p.size_bytes) + " " + describe(p.config);
      if (p.status == PointStatus::Failed) out.push_back({s, "point failed", what, p.reason.empty() ? "(no reason recorded)" : p.reason});
      if (p.status != PointStatus::Skipped) continue;
      auto& k = skips[p.reason.empty() ? "(no reason recorded)" : p.reason];
      ++k.count, k.lo = std::min(k.lo, p.size_bytes), k.hi = std::max(k.hi, p.size_bytes);
      k.what.insert(to_string(p.collective) + " " + describe(p.config));
    }
    for (const auto& [reason, k] : skips) {
      std::string what = std::to_string(k.count) + (k.count == 1 ? " point, " : " points, ") + sizes_range(k.lo, k.hi) + ":";
      std::size_t shown = 0;
      for (const auto& w : k.what) {
        if (shown++ == 4) { what += " ..."; break; }
        what += (shown > 1 ? ", " : " ") + w;
      }
      out.push_back({s, "skipped", what, reason});
    }
  }
  return out;
}

}  // namespace

Comparison build_comparison(std::vector<InputFile> files, const CompareOptions& options) {
  Comparison c;
  c.files = std::move(files);
  assign_labels(c, options.labels);
  const PointIndex index = index_points(c);
  if (!options.allow_disjoint) check_overlap(c, index);
  c.mismatches = find_mismatches(c, index);

  std::map<TableKey, std::set<std::uint64_t>> sizes;
  for (const auto& per_series : index)
    for (const auto& [k, pts] : per_series) sizes[k.first].insert(k.second);
  for (const auto& [key, sz] : sizes) {
    Table table{key, {}};
    for (auto size : sz) {
      Row row{size, {}};
      for (std::size_t s = 0; s < c.series.size(); ++s) {
        auto it = index[s].find({key, size});
        row.cells.push_back(it == index[s].end() ? Cell{} : pick_cell(it->second));
      }
      const PointResult* base = row.cells.empty() ? nullptr : row.cells[0].point;
      for (auto& cell : row.cells)
        if (base && cell.point && base->status == PointStatus::Ok && cell.point->status == PointStatus::Ok && base->busbw_GBps > 0)
          cell.ratio = cell.point->busbw_GBps / base->busbw_GBps;
      table.rows.push_back(std::move(row));
    }
    c.tables.push_back(std::move(table));

    for (std::size_t s = 0; s < c.series.size(); ++s) {
      TunedTable tuned{s, key, {}};
      for (auto size : sz) {
        auto it = index[s].find({key, size});
        if (it == index[s].end()) continue;
        const PointResult* t = best_ok(it->second, true);
        if (!t) continue;
        TunedRow row{size, best_ok(it->second, false), t, {}};
        if (row.default_point && t->batch_us > 0) row.speedup = row.default_point->batch_us / t->batch_us;
        tuned.rows.push_back(row);
      }
      if (!tuned.rows.empty()) c.tuned.push_back(std::move(tuned));
    }
  }
  std::stable_sort(c.tuned.begin(), c.tuned.end(), [](const TunedTable& a, const TunedTable& b) { return a.series < b.series; });
  c.problems = find_problems(c);
  return c;
}

}  // namespace cctune::app::report
