// Writing results.json: whole (save_results) or from each point's text formatted once when it
// arrived (save_results_with_points), both linear in the file's size (docs/RUNTIME.md,
// "Persistence").
#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/files.hpp"
#include "core/results_json.hpp"
#include "core/text.hpp"

namespace cctune {

using nlohmann::json;

namespace {
// Per-rank columns one number per line would make 1024 ranks x many points a long file:
// they are written on one line each (only the columns of points[].ranks use these keys for
// arrays; the point's own batch_us is a number). One pass into a new string, so a save
// costs time linear in the file (the earlier in-place replace was quadratic: 14 s at 32k
// points, which made SIGTERM outlast Slurm's KillWait).
std::string one_line_rank_columns(const std::string& text) {
  static constexpr std::string_view keys[] = {"\"batch_us\": ", "\"iter_median_us\": ", "\"wait_median_us\": ", "\"last_pct\": "};
  std::string out;
  out.reserve(text.size());
  std::size_t copied = 0;
  for (std::size_t open = text.find('['); open != std::string::npos; open = text.find('[', open + 1)) {
    const std::string_view before = std::string_view(text).substr(0, open);
    const bool column = std::any_of(std::begin(keys), std::end(keys), [&](std::string_view k) { return before.ends_with(k); });
    if (!column) continue;
    const std::size_t close = text.find(']', open);
    if (close == std::string::npos) break;
    out.append(text, copied, open + 1 - copied);
    for (std::size_t i = open + 1; i < close; ++i)
      if (text[i] != '\n' && text[i] != ' ') out += text[i];
    copied = close;
    open = close;
  }
  out.append(text, copied, std::string::npos);
  return out;
}
}  // namespace

void save_results(const Results& r, const std::string& path) {
  write_file_atomically(path, one_line_rank_columns(text::dump_json(json(r), 1)) + "\n");
}

std::string point_text(const PointResult& p) {
  const std::string text = one_line_rank_columns(json(p).dump(1, ' ', false, json::error_handler_t::replace));
  // Indented as an element of runs[].points: four levels deeper than a document of its own.
  std::string out = "    ";
  out.reserve(text.size() + text.size() / 8);
  for (const char c : text) {
    out += c;
    if (c == '\n') out += "    ";
  }
  return out;
}

void PointTexts::add(const PointResult& p) {
  const std::string text = point_text(p);
  if (chunks_.empty() || chunks_.back().size() + text.size() + 2 > kChunkBytes) {
    chunks_.emplace_back();
    chunks_.back().reserve(std::max(kChunkBytes, text.size() + 2));
  }
  (chunks_.back() += count_ ? ",\n" : "\n") += text;
  ++count_;
}

void save_results_with_points(Results& r, const std::vector<PointTexts>& point_texts, const std::string& path) {
  // The runs without points make a small tree; each run's cached point texts go where its
  // empty "points" array is ("runs" is the one top-level key at one space of indent).
  std::vector<std::vector<PointResult>> stash(r.runs.size());
  for (std::size_t i = 0; i < r.runs.size(); ++i) std::swap(stash[i], r.runs[i].points);
  std::string skeleton;
  try {
    skeleton = one_line_rank_columns(json(r).dump(1, ' ', false, json::error_handler_t::replace));
  } catch (...) {
    for (std::size_t i = 0; i < r.runs.size(); ++i) std::swap(stash[i], r.runs[i].points);
    throw;
  }
  for (std::size_t i = 0; i < r.runs.size(); ++i) std::swap(stash[i], r.runs[i].points);  // restored
  static constexpr std::string_view empty = "\"points\": []";
  const std::string_view sk = skeleton;
  std::vector<std::string_view> pieces;
  std::size_t at = sk.find("\n \"runs\": [");
  std::size_t copied = 0;
  for (std::size_t i = 0; i < r.runs.size() && at != std::string_view::npos; ++i) {
    at = sk.find(empty, at);
    if (at == std::string_view::npos) break;
    pieces.push_back(sk.substr(copied, at - copied));
    pieces.push_back("\"points\": [");
    const bool any = i < point_texts.size() && point_texts[i].count() > 0;
    if (any)
      for (const std::string& chunk : point_texts[i].chunks()) pieces.push_back(chunk);
    pieces.push_back(any ? "\n   ]" : "]");
    copied = at = at + empty.size();
  }
  pieces.push_back(sk.substr(copied));
  pieces.push_back("\n");
  write_file_atomically(path, pieces);
}

}  // namespace cctune
