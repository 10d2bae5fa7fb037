#pragma once
// JSON mapping of results.hpp. from_json validates the schema tag and throws UsageError
// naming the file's problem; callers add the file name.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/results.hpp"

namespace cctune {

void to_json(nlohmann::json& j, const Summary& s);
void from_json(const nlohmann::json& j, Summary& s);
void to_json(nlohmann::json& j, const PointConfig& c);
void from_json(const nlohmann::json& j, PointConfig& c);
// A name list: known names in NCCL's index order, then the unknown ones as read.
void to_json(nlohmann::json& j, const AlgorithmOffer& o);
void from_json(const nlohmann::json& j, AlgorithmOffer& o);
void to_json(nlohmann::json& j, const PointResult& p);
void from_json(const nlohmann::json& j, PointResult& p);
void to_json(nlohmann::json& j, const RankPlace& p);
void from_json(const nlohmann::json& j, RankPlace& p);
void to_json(nlohmann::json& j, const RunResult& r);
void from_json(const nlohmann::json& j, RunResult& r);
void to_json(nlohmann::json& j, const Meta& m);
void from_json(const nlohmann::json& j, Meta& m);
void to_json(nlohmann::json& j, const Results& r);
void from_json(const nlohmann::json& j, Results& r);

// Reads and validates a results file, and folds in the results.journal beside it (points of
// a sweep killed before its last save); errors name the path and what is wrong. Memory is
// bounded by results_budget.hpp's counts, not only by the file's size.
Results load_results(const std::string& path);
// The text of a results file; `source` names it in errors. Throws UsageError like load_results.
Results parse_results(const std::string& text, const std::string& source);
// Writes through a temporary file and rename(2): readers never see half a file.
void save_results(const Results& r, const std::string& path);
// A point as save_results writes it inside runs[].points (formatted once, when it arrives).
std::string point_text(const PointResult& p);

// One run's points as save_results writes them inside runs[].points, each formatted once
// (point_text) when it arrives and appended to a few large chunks: a rewrite then neither
// formats nor copies a point, and nothing is allocated (or freed at exit) per point.
class PointTexts {
 public:
  void add(const PointResult& p);
  std::size_t count() const { return count_; }
  // Between "points": [ and its closing bracket; each point after "\n" (the first) or ",\n".
  const std::vector<std::string>& chunks() const { return chunks_; }

 private:
  static constexpr std::size_t kChunkBytes = std::size_t{1} << 20;
  std::vector<std::string> chunks_;
  std::size_t count_ = 0;
};

// The same file as save_results, from the points' cached texts (point_texts[run] for
// r.runs[run].points), streamed into the file piece by piece: the cost of a rewrite is
// writing the bytes once, not building a JSON tree of every point nor one string of the
// whole file, so SIGTERM at 40 000 points returns at once. `r` is restored.
void save_results_with_points(Results& r, const std::vector<PointTexts>& point_texts, const std::string& path);

}  // namespace cctune
