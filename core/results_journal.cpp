#include "core/results_journal.hpp"

#include <chrono>
#include <filesystem>
#include <optional>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/json_depth.hpp"
#include "core/results_fields.hpp"
#include "core/results_json.hpp"

namespace cctune {

using nlohmann::json;

namespace {

// A line of outside text never makes the writer throw: invalid UTF-8 (a worker's reason) is
// replaced, as in results.json.
std::string line_of(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n"; }

const std::string kFix = "remove the journal to keep only what results.json holds, or re-run the sweep";

// One point line applied to `results`; returns whether it added a point.
bool apply_line(Results& results, const json& line, const std::string& where) {
  const auto run = line.find("run");
  const auto index = line.find("index");
  const bool screened = line.contains("screened");
  const auto body = line.find(screened ? "screened" : "point");
  if (run == line.end() || !run->is_number_unsigned() || index == line.end() || !index->is_number_unsigned() || body == line.end())
    throw UsageError(where + " is not a journal line cctune wrote (needs \"run\", \"index\" and a point)", kFix);
  if (run->get<std::uint64_t>() >= results.runs.size())
    throw UsageError(where + " names run " + std::to_string(run->get<std::uint64_t>()) + ", and the results hold " +
                         std::to_string(results.runs.size()),
                     kFix);
  RunResult& target = results.runs[run->get<std::size_t>()];
  std::vector<PointResult>& list = screened ? target.screened : target.points;
  const std::uint64_t at = index->get<std::uint64_t>();
  if (at < list.size()) return false;  // saved in results.json since
  if (at > list.size())
    throw UsageError(where + " is point " + std::to_string(at) + " of run " + std::to_string(run->get<std::uint64_t>()) + ", which holds only " +
                         std::to_string(list.size()) + " (a line is missing)",
                     kFix);
  PointResult p;
  std::optional<AlgorithmOffer> offer;
  try {
    check_point_fields(*body, screened ? "screened" : "point");  // a mistyped field named in our words
    p = body->get<PointResult>();
    if (const auto offered = line.find("offered"); offered != line.end() && offered->is_array()) offer = offered->get<AlgorithmOffer>();
  } catch (const UsageError& e) {
    throw UsageError(where + ": " + e.what_only(), kFix);
  }
  if (offer) target.nccl_offered[p.collective] = std::move(*offer);
  list.push_back(std::move(p));
  return true;
}

}  // namespace

std::string journal_path_for(const std::string& results_path) {
  return (std::filesystem::path(results_path).parent_path() / "results.journal").string();
}

ResultsJournal::ResultsJournal(const std::string& path, const std::string& start_time)
    : file_(path, "another sweep left it: resume that sweep with --resume, or pass --force to start over") {
  file_.append(line_of(json{{"journal", journal_schema}, {"start_time", start_time}}));
  file_.sync();
  last_sync_ = std::chrono::steady_clock::now();
}

void ResultsJournal::point(std::size_t run, std::size_t index, const PointResult& p, const AlgorithmOffer& offered) {
  json line{{"run", run}, {"index", index}, {"point", p}};
  if (!offered.empty()) line["offered"] = offered;
  write(line_of(line));
}

void ResultsJournal::screened(std::size_t run, std::size_t index, const PointResult& p) {
  write(line_of(json{{"run", run}, {"index", index}, {"screened", p}}));
}

void ResultsJournal::write(const std::string& line) {
  file_.append(line);  // in the page cache now: no process death can lose it
  const auto now = std::chrono::steady_clock::now();
  if (now - last_sync_ < kSyncEvery) return;
  file_.sync();
  last_sync_ = std::chrono::steady_clock::now();
}

ResultsJournal::~ResultsJournal() {
  try {
    file_.sync();
  } catch (const std::exception&) {
    // Closing after a failed sync: results.json's own save reports a full disk.
  }
}

JournalFold fold_journal(Results& results, const std::string& text, const std::string& source) {
  JournalFold fold;
  std::size_t begin = 0;
  for (std::size_t number = 1; begin < text.size(); ++number) {
    const std::size_t end = text.find('\n', begin);
    const bool last = end == std::string::npos;
    const std::string_view line = std::string_view(text).substr(begin, last ? std::string::npos : end - begin);
    begin = last ? text.size() : end + 1;
    const std::string where = source + " line " + std::to_string(number);
    json j;
    try {
      if (json_nests_deeper_than(line)) throw UsageError("nests too deep");
      j = json::parse(line);
    } catch (const std::exception&) {
      if (last) {  // the write a kill cut short: the point before it is whole
        fold.torn_tail = true;
        break;
      }
      throw UsageError(where + " is not valid JSON", kFix);
    }
    if (!j.is_object()) throw UsageError(where + " is not a JSON object", kFix);
    if (number == 1) {
      if (j.value("journal", "") != journal_schema || !j.contains("start_time") || !j.at("start_time").is_string())
        throw UsageError(source + " does not start with a " + journal_schema + " header", kFix);
      if (j.at("start_time").get<std::string>() != results.meta.start_time)
        throw UsageError(source + " belongs to a sweep started at " + j.at("start_time").get<std::string>() + ", not to the results of " +
                             results.meta.start_time,
                         kFix);
      continue;
    }
    try {
      if (apply_line(results, j, where)) ++fold.added;
    } catch (const json::exception& e) {
      throw UsageError(where + " does not hold a point: " + e.what(), kFix);
    }
  }
  return fold;
}

JournalFold fold_journal_beside(Results& results, const std::string& results_path) {
  const std::string path = journal_path_for(results_path);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return {};
  return fold_journal(results, read_file(path), path);
}

}  // namespace cctune
