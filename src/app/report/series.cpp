// Loading files, naming series, and listing the settings in which series differ.
#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "app/report/matching.hpp"
#include "app/report/comparison_build.hpp"
#include "core/error.hpp"
#include "core/results_json.hpp"
#include "core/text.hpp"
#include "core/units.hpp"

namespace cctune::app::report {

std::vector<InputFile> load_inputs(const std::vector<std::string>& paths) {
  std::vector<InputFile> files;
  for (const auto& p : paths) files.push_back({p, "", load_results(p)});  // errors name the path
  return files;
}

std::string file_name(const InputFile& f, std::size_t index) {
  return f.path.empty() ? "results #" + std::to_string(index + 1) : f.path;
}

namespace {

void make_unique(std::vector<std::string>& labels) {
  std::map<std::string, int> seen;
  for (const auto& l : labels) ++seen[l];
  std::map<std::string, int> next;
  for (auto& l : labels)
    if (seen[l] > 1) l += "#" + std::to_string(++next[l]);
}

// File stem, or the directory name for sweep outputs (all called results.json).
std::vector<std::string> default_file_labels(const std::vector<InputFile>& files) {
  std::vector<std::string> labels;
  std::map<std::string, int> stems;
  for (const auto& f : files) stems[std::filesystem::path(f.path).stem().string()]++;
  for (std::size_t i = 0; i < files.size(); ++i) {
    const auto& f = files[i];
    if (f.path.empty()) {
      labels.push_back(f.results.runs.size() == 1 ? f.results.runs[0].group : "run" + std::to_string(i + 1));
      continue;
    }
    const std::filesystem::path p(f.path);
    std::string label = p.stem().string();
    if ((label == "results" || stems[label] > 1)) {
      const std::string dir = std::filesystem::absolute(p).parent_path().filename().string();
      if (!dir.empty()) label = dir;
    }
    labels.push_back(label);
  }
  return labels;
}

std::string join_values(const std::vector<std::pair<std::string, std::string>>& v) {
  std::string out;
  for (const auto& [who, what] : v) out += (out.empty() ? "" : ", ") + who + " " + what;
  return out;
}

// Lists a property when not all series agree: "nranks differ: shm 2, np4 4".
template <class F>
void check_property(const Comparison& c, const std::string& name, F value, std::vector<std::string>& out) {
  std::vector<std::pair<std::string, std::string>> v;
  std::set<std::string> distinct;
  for (const auto& s : c.series) {
    v.emplace_back(s.label, value(c.run_of(s), c.results_of(s)));
    distinct.insert(v.back().second);
  }
  if (distinct.size() > 1) out.push_back(name + " differ: " + join_values(v));
}

std::string size_list(const std::vector<std::uint64_t>& sizes, std::size_t max_shown = 4) {
  std::string out;
  for (std::size_t i = 0; i < sizes.size() && i < max_shown; ++i) out += (i ? ", " : "") + format_size(sizes[i]);
  if (sizes.size() > max_shown) out += ", ...";
  return out;
}

}  // namespace

void assign_labels(Comparison& c, const std::vector<std::string>& requested) {
  for (const auto& l : requested)
    if (l.empty()) throw UsageError("--labels has an empty name", "give one non-empty name per file, e.g. --labels nvlink,pcie,net");
  std::size_t n_series = 0;
  for (const auto& f : c.files) n_series += f.results.runs.size();
  const bool per_series = !requested.empty() && requested.size() == n_series;
  const bool per_file = !requested.empty() && requested.size() == c.files.size();
  if (!requested.empty() && !per_series && !per_file)
    throw UsageError("--labels has " + std::to_string(requested.size()) + " names for " + std::to_string(c.files.size()) +
                         " files (" + std::to_string(n_series) + " config groups)",
                     "give one name per file, or one per config group");
  auto file_labels = per_file && !per_series ? requested : default_file_labels(c.files);
  if (!per_file || per_series) make_unique(file_labels);
  for (std::size_t i = 0; i < c.files.size(); ++i) c.files[i].label = file_labels[i];

  std::vector<std::string> labels;
  for (std::size_t f = 0; f < c.files.size(); ++f) {
    const auto& runs = c.files[f].results.runs;
    for (std::size_t r = 0; r < runs.size(); ++r) {
      c.series.push_back({"", f, r});
      if (per_series) labels.push_back(requested[labels.size()]);
      else if (runs.size() == 1) labels.push_back(file_labels[f]);
      else if (c.files.size() == 1) labels.push_back(runs[r].group);
      else labels.push_back(file_labels[f] + "/" + runs[r].group);
    }
  }
  make_unique(labels);
  for (std::size_t i = 0; i < labels.size(); ++i) c.series[i].label = labels[i];
}

std::vector<std::string> find_mismatches(const Comparison& c, const PointIndex& index) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < c.files.size(); ++i) {
    const auto& m = c.files[i].results.meta;
    if (m.status != MetaStatus::Complete)
      out.push_back(c.files[i].label + " (" + file_name(c.files[i], i) + "): sweep status is '" + to_string(m.status) + "', not complete");
  }
  if (c.series.size() < 2) return out;
  check_property(c, "backends", [](const RunResult& r, const Results&) { return r.backend; }, out);
  check_property(c, "nranks", [](const RunResult& r, const Results&) { return std::to_string(r.nranks); }, out);
  check_property(c, "nnodes", [](const RunResult& r, const Results&) { return std::to_string(r.nnodes); }, out);
  check_property(c, "cctune versions", [](const RunResult&, const Results& r) { return r.meta.cctune_version; }, out);
  std::set<std::string> version_keys;
  for (const auto& f : c.files)
    for (const auto& [k, v] : f.results.meta.versions) version_keys.insert(k);
  for (const auto& key : version_keys)
    check_property(c, "versions." + key + " values", [&](const RunResult&, const Results& r) {
      auto it = r.meta.versions.find(key);
      return it == r.meta.versions.end() ? std::string("(none)") : it->second;
    }, out);
  // Settings are compared as the files wrote them, key by key, not through the typed plan: a
  // comparison names every difference, in fields this build does not know too (a newer cctune's,
  // a hand-made fixture's), and it reads no field's meaning, so no format can be violated.
  std::set<std::string> setting_keys;
  for (const auto& f : c.files)
    if (f.results.meta.settings.json().is_object())
      for (const auto& [k, v] : f.results.meta.settings.json().items()) setting_keys.insert(k);
  for (const auto& key : setting_keys) {
    if (key.find("out") != std::string::npos || key == "labels") continue;  // where files went is no setting
    check_property(c, "settings." + key + " values", [&](const RunResult&, const Results& r) {
      const auto& s = r.meta.settings.json();
      return s.is_object() && s.contains(key) ? text::json_excerpt(s.at(key), 39) : std::string("(none)");
    }, out);
  }

  // Tables and sizes some series lack.
  std::map<TableKey, std::set<std::uint64_t>> all;
  for (const auto& per_series : index)
    for (const auto& [k, pts] : per_series) all[k.first].insert(k.second);
  for (const auto& [table, sizes] : all) {
    std::vector<std::string> absent;
    for (std::size_t s = 0; s < c.series.size(); ++s) {
      std::vector<std::uint64_t> missing;
      for (auto size : sizes)
        if (!index[s].count({table, size})) missing.push_back(size);
      if (missing.size() == sizes.size()) absent.push_back(c.series[s].label);
      else if (!missing.empty())
        out.push_back(describe(table) + ": " + c.series[s].label + " lacks " + std::to_string(missing.size()) + " of " +
                      std::to_string(sizes.size()) + " sizes (" + size_list(missing) + ")");
    }
    if (!absent.empty()) {
      std::string who;
      for (const auto& a : absent) who += (who.empty() ? "" : ", ") + a;
      out.push_back(describe(table) + ": not measured in " + who);
    }
  }
  return out;
}

}  // namespace cctune::app::report
