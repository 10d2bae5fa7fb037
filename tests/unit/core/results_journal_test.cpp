// results.journal (F5) and the memory bound of reading results (F7).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/results_budget.hpp"
#include "core/results_journal.hpp"
#include "core/results_json.hpp"

using namespace cctune;

namespace {

class Dir {
 public:
  Dir() : path_(std::filesystem::temp_directory_path() / ("cctune-journal-" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~Dir() { std::filesystem::remove_all(path_); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

PointResult point(std::uint64_t size, const std::string& reason = "") {
  PointResult p;
  p.size_bytes = size;
  p.batch_us = 10;
  p.algbw_GBps = static_cast<double>(size) / 1e4;
  p.busbw_GBps = p.algbw_GBps;
  p.reason = reason;
  return p;
}

Results started() {
  Results r;
  r.meta.start_time = "2026-11-24T20:00:00Z";
  RunResult run;
  run.backend = "mpi";
  run.nranks = 1;
  run.nnodes = 1;
  run.points = {point(8)};
  r.runs.push_back(run);
  return r;
}

}  // namespace

TEST(ResultsJournal, KilledSweepKeepsEveryJournalledPoint) {
  Dir dir;
  const std::string results = dir.file("results.json");
  save_results(started(), results);
  {
    ResultsJournal journal(journal_path_for(results), "2026-11-24T20:00:00Z");
    // "warp9": an algorithm of an NCCL newer than this build, kept as the journal names it.
    journal.point(0, 1, point(16, "bad \xff byte"), AlgorithmOffer{algorithm_bit(Algorithm::Ring), {"warp9"}});  // outside text never makes the writer throw
    journal.point(0, 2, point(32), {});
    journal.screened(0, 0, point(64));
  }
  // A kill in the middle of the next write: a cut last line.
  std::ofstream(journal_path_for(results), std::ios::app) << "{\"run\":0,\"index\":3,\"poi";
  const Results r = load_results(results);
  ASSERT_EQ(r.runs[0].points.size(), 3u);
  EXPECT_EQ(r.runs[0].points[2].size_bytes, 32u);
  EXPECT_EQ(r.runs[0].screened.size(), 1u);
  EXPECT_EQ(r.runs[0].nccl_offered.at(Collective::AllReduce), (AlgorithmOffer{algorithm_bit(Algorithm::Ring), {"warp9"}}));
  // Idempotent: folding into results that already hold the points adds nothing.
  Results again = r;
  EXPECT_EQ(fold_journal(again, read_file(journal_path_for(results)), "j").added, 0u);
  EXPECT_EQ(again.runs[0].points.size(), 3u);
}

TEST(ResultsJournal, ForeignOrGappedJournalsAreRefused) {
  Results r = started();
  const std::string header = std::string("{\"journal\":\"") + journal_schema + "\",\"start_time\":\"2026-11-24T20:00:00Z\"}\n";
  EXPECT_THROW(fold_journal(r, "{\"journal\":\"cctune.journal/1\",\"start_time\":\"other\"}\n", "j"), UsageError);
  nlohmann::json gap{{"run", 0}, {"index", 5}, {"point", point(8)}};
  EXPECT_THROW(fold_journal(r, header + gap.dump() + "\n", "j"), UsageError);
  nlohmann::json run9{{"run", 9}, {"index", 1}, {"point", point(8)}};
  EXPECT_THROW(fold_journal(r, header + run9.dump() + "\n", "j"), UsageError);
  EXPECT_THROW(fold_journal(r, header + "garbage\n{}\n", "j"), UsageError);  // only the last line may be cut
  nlohmann::json bad_offer{{"run", 0}, {"index", 1}, {"point", point(8)}, {"offered", {"ring", 7}}};
  try {
    fold_journal(r, header + bad_offer.dump() + "\n", "j");
    FAIL() << "accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(e.what_only().find("not an algorithm name"), std::string::npos) << e.what_only();
  }
  // Review N15: a journalled point's field of another type is named in our words (it quoted
  // "[json.exception.type_error.302] type must be string, but is number").
  nlohmann::json mistyped{{"run", 0}, {"index", 1}, {"point", point(8)}};
  mistyped["point"]["dtype"] = 4;
  try {
    fold_journal(r, header + mistyped.dump() + "\n", "j");
    FAIL() << "accepted";
  } catch (const UsageError& e) {
    EXPECT_EQ(e.what_only(), "j line 2: point.dtype: expected a string, got an integer");
  }
}

// F7: 99 MB of `{}` in "topology" took 5.8 GB in `compare`; the count refuses it first.
TEST(ResultsBudget, FreeFormSectionsAndValueCountsAreBounded) {
  std::string amp = R"({"schema":"cctune.results/2","meta":{"schema":"cctune.results/2"},"runs":[],"topology":[)";
  for (int i = 0; i < (1 << 20) + 1; ++i) amp += i ? ",{}" : "{}";
  amp += "]}";
  try {
    parse_results(amp, "amp.json");
    FAIL() << "accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(e.what_only().find("values in \"topology\""), std::string::npos) << e.what_only();
  }
  ResultsBudget tiny;
  tiny.values = 10;
  EXPECT_THROW(check_results_budget("[1,2,3,4,5,6,7,8,9,10,11]", "x", tiny), UsageError);
  EXPECT_NO_THROW(check_results_budget("[1,2,3]", "x", tiny));
  ResultsBudget few_containers;
  few_containers.containers = 2;
  EXPECT_THROW(check_results_budget("[[],[]]", "x", few_containers), UsageError);
  // A real file passes.
  EXPECT_NO_THROW(parse_results(nlohmann::json(started()).dump(), "ok.json"));
}

// The rewrite from cached point texts (what makes SIGTERM at 40k points quick) writes the
// same bytes as the whole-tree save.
TEST(ResultsJson, SaveFromPointTextsIsTheSameFile) {
  Dir dir;
  Results r = started();
  r.runs[0].points.push_back(point(16));
  r.runs[0].points[1].ranks.batch_us = {1.5, 2.25};
  r.runs[0].points[1].ranks.iter_median_us = {1, 2};
  r.runs[0].points[1].ranks.wait_median_us = {0, 0.5};
  r.runs[0].points[1].ranks.last_pct = {50, 50};
  r.runs[0].nranks = 2;
  RunResult empty = r.runs[0];
  empty.group = "empty";
  empty.points.clear();
  r.runs.push_back(empty);
  r.topology = ResultSection(nlohmann::json{{"points", nlohmann::json::array()}});  // after "runs": never taken for a run's points
  std::vector<PointTexts> texts(2);
  for (const auto& p : r.runs[0].points) texts[0].add(p);
  save_results(r, dir.file("a.json"));
  save_results_with_points(r, texts, dir.file("b.json"));
  EXPECT_EQ(read_file(dir.file("a.json")), read_file(dir.file("b.json")));
  EXPECT_EQ(r.runs[0].points.size(), 2u);  // restored
}

// Thousands of points fill several of PointTexts' chunks: the file streamed from them is
// still byte for byte the one save_results writes from the whole tree.
TEST(ResultsJson, SaveFromManyChunksIsTheSameFile) {
  Dir dir;
  Results r = started();
  r.runs[0].points.clear();
  std::vector<PointTexts> texts(1);
  for (std::uint64_t i = 0; i < 6000; ++i) {
    r.runs[0].points.push_back(point(8 * (i + 1), i % 7 == 0 ? "reason \"quoted\"" : ""));
    texts[0].add(r.runs[0].points.back());
  }
  ASSERT_GT(texts[0].chunks().size(), 1u) << "the test must cross a chunk boundary";
  save_results(r, dir.file("a.json"));
  save_results_with_points(r, texts, dir.file("b.json"));
  EXPECT_TRUE(read_file(dir.file("a.json")) == read_file(dir.file("b.json")));  // no diff of megabytes
  EXPECT_EQ(load_results(dir.file("b.json")).runs[0].points.size(), 6000u);
}
