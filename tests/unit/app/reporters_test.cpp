// The sweep's reporters without a sweep: the events a backend sends, and what each reporter
// makes of them (the CSV rows, the table's pairing of placements, results.json's saves).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "app/run/csv_reporter.hpp"
#include "app/run/json_reporter.hpp"
#include "app/run/progress.hpp"
#include "app/run/table_reporter.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/reporter.hpp"
#include "core/results_json.hpp"
#include "support/temp_dir.hpp"

namespace cctune::app {
namespace {

namespace fs = std::filesystem;

using testing::slurp;
using testing::TempDir;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream s(text);
  for (std::string line; std::getline(s, line);) out.push_back(line);
  return out;
}

PointResult point(std::uint64_t size, bool in_place, double busbw = 10) {
  PointResult p;
  p.collective = Collective::AllReduce;
  p.size_bytes = size;
  p.count = size / 4;
  p.in_place = in_place;
  p.batch_us = 12.5;
  p.algbw_GBps = busbw / 2;
  p.busbw_GBps = busbw;
  p.wrong = 0;
  p.iter_us.median = 12.25;
  p.iter_us.p99 = 20;
  p.iterations = 100;
  p.stop_reason = StopReason::Noise;
  return p;
}

RunResult run(const std::string& group) {
  RunResult r;
  r.backend = "nccl";
  r.group = group;
  r.nranks = 2;
  r.nnodes = 1;
  return r;
}

// Records the events it gets, to check the multiplexer's forwarding.
struct Recorder : Reporter {
  explicit Recorder(std::vector<std::string>& log, std::string name) : log_(log), name_(std::move(name)) {}
  void begin_run(const RunResult& r) override { log_.push_back(name_ + " run " + r.group); }
  void point(const PointResult& p) override { log_.push_back(name_ + " point " + std::to_string(p.size_bytes)); }
  void finish(MetaStatus status) override { log_.push_back(name_ + " finish " + to_string(status)); }
  std::vector<std::string>& log_;
  std::string name_;
};

TEST(Reporters, ForwardsEveryEventInOrderAndAnEmptySetIgnoresThem) {
  std::vector<std::string> log;
  Reporters all;
  all.add(std::make_unique<Recorder>(log, "a"));
  all.add(std::make_unique<Recorder>(log, "b"));
  all.begin_run(run("g"));
  all.point(point(8, false));
  all.finish(MetaStatus::Complete);
  EXPECT_EQ(log, (std::vector<std::string>{"a run g", "b run g", "a point 8", "b point 8", "a finish complete", "b finish complete"}));
  Reporters none;  // what ranks other than 0 get
  none.begin_run(run("g"));
  none.point(point(8, false));
  none.finish(MetaStatus::Complete);
}

TEST(CsvReporter, OneRowPerPointWithTheColumnsOfTheHeader) {
  TempDir d;
  const fs::path f = d.path / "points.csv";
  {
    CsvReporter csv(f.string());
    csv.begin_run(run("default"));
    csv.begin_collective(Collective::AllReduce, "ctx");
    csv.point(point(1024, false));
    PointResult skipped = point(1024, true);
    skipped.status = PointStatus::Skipped;
    skipped.reason = "no in-place for this config";
    csv.point(skipped);
    csv.end_collective();
    // Before finish: the rows of the finished collective are on disk.
    EXPECT_EQ(lines_of(slurp(f)).size(), 3u);
    csv.finish(MetaStatus::Complete);
  }
  const auto lines = lines_of(slurp(f));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], CsvReporter::header());
  EXPECT_EQ(lines[0],
            "backend,group,collective,algorithm,protocol,channels,graph,size_bytes,count,dtype,op,root,in_place,status,time_us,algbw_GBps,"
            "busbw_GBps,wrong,median_us,p99_us,iterations,stop_reason,chosen_algorithm,chosen_protocol,chosen_channels,reason");
  EXPECT_EQ(lines[1], "nccl,default,allreduce,auto,auto,0,0,1024,256,float32,sum,,0,ok,12.5,5,10,0,12.25,20,100,noise,,,0,");
  // No times for a point that was not measured.
  EXPECT_EQ(lines[2], "nccl,default,allreduce,auto,auto,0,0,1024,256,float32,sum,,1,skipped,,,,,,,100,noise,,,0,no in-place for this config");
}

TEST(CsvReporter, EscapesEveryTextFieldAndLeavesNoReductionOpForGathers) {
  PointResult p = point(64, false);
  p.collective = Collective::AllGather;
  p.wrong = -1;  // not checked: empty, not -1
  p.status = PointStatus::Failed;
  p.reason = "worker died, \"signal 9\"";
  const std::string row = CsvReporter::row(run("=cmd|' /C calc'!A0,x"), p);
  EXPECT_EQ(row, "nccl,\"'=cmd|' /C calc'!A0,x\",allgather,auto,auto,0,0,64,16,float32,none,,0,failed,,,,,,,100,noise,,,0,"
                 "\"worker died, \"\"signal 9\"\"\"");
}

TEST(CsvReporter, WritesTheCarriedOverPointsOfAResumedRun) {
  TempDir d;
  const fs::path f = d.path / "points.csv";
  CsvReporter csv(f.string());
  RunResult resumed = run("default");
  resumed.points = {point(8, false), point(8, true)};
  csv.begin_run(resumed);
  csv.point(point(64, false));
  csv.finish(MetaStatus::Interrupted);
  EXPECT_EQ(lines_of(slurp(f)).size(), 4u);
}

TEST(CsvReporter, RefusesAnExistingFileNamingItAndTheFix) {
  TempDir d;
  const fs::path f = d.path / "old.csv";
  std::ofstream(f) << "keep\n";
  try {
    CsvReporter csv(f.string());
    FAIL() << "an existing CSV was opened";
  } catch (const UsageError& e) {
    EXPECT_NE(e.describe().find(f.string() + " already exists"), std::string::npos) << e.describe();
    EXPECT_NE(e.fix().find("--csv"), std::string::npos) << e.fix();
  }
  EXPECT_EQ(slurp(f), "keep\n");
}

std::string table_of(const std::function<void(Reporter&)>& events) {
  std::FILE* out = std::tmpfile();
  {
    TableReporter table(out);
    events(table);
  }
  std::rewind(out);
  std::string text;
  for (int c; (c = std::fgetc(out)) != EOF;) text += static_cast<char>(c);
  std::fclose(out);
  return text;
}

TEST(TableReporter, PairsPlacementsIntoRowsAndAveragesOkPoints) {
  const std::string text = table_of([](Reporter& t) {
    t.begin_collective(Collective::AllReduce, "backend test");
    t.point(point(8, false, 1));
    t.point(point(8, true, 2));
    t.point(point(64, false, 3));  // no in-place partner: a row of its own at the next size
    PointResult failed = point(128, false, 100);
    failed.status = PointStatus::Failed;
    t.point(failed);
    t.end_collective();
  });
  const auto lines = lines_of(text);
  ASSERT_EQ(lines.size(), 9u) << text;  // 5 header lines, 3 rows and the footer
  EXPECT_EQ(lines[1], "# allreduce  backend test");
  EXPECT_NE(lines[5].find("        8"), std::string::npos);
  EXPECT_EQ(lines[6].substr(lines[6].size() - 6), "     -") << lines[6];  // 64 B: in-place not run
  EXPECT_NE(lines[7].find("FAIL"), std::string::npos);
  EXPECT_EQ(lines[8], "# Avg bus bandwidth    : 2.000 GB/s over 3 points");
}

// A results.json in a temporary folder, and the run-start results a reporter writes first.
struct JsonFile {
  TempDir d;
  std::string path = (d.path / "results.json").string();
};

Results running() {
  Results initial;
  initial.meta.status = MetaStatus::Running;
  return initial;
}

// Each point is in the journal at once (F5); results.json is rewritten at run start and end.
TEST(JsonReporter, JournalsEveryPointAtOnceAndMarksAnInterruptedRun) {
  const JsonFile f;
  const std::string& path = f.path;
  JsonReporter json(running(), path);
  json.begin_run(run("default"));
  json.begin_collective(Collective::AllReduce, "ctx");
  json.point(point(8, false));
  EXPECT_TRUE(parse_results(read_file(path), path).runs.at(0).points.empty());  // results.json: the run's start only
  EXPECT_EQ(load_results(path).runs.at(0).points.size(), 1u);                   // + the journal beside it
  json.end_collective();
  json.point(point(64, false));
  json.finish(MetaStatus::Interrupted);
  const Results saved = load_results(path);
  EXPECT_EQ(saved.meta.status, MetaStatus::Interrupted);
  EXPECT_EQ(saved.runs.at(0).status, RunStatus::Interrupted);
  EXPECT_EQ(saved.runs.at(0).points.size(), 2u);  // the interrupted collective's points too
}

// The run's summary (runs[].nccl_offered) is the union of its points' offers per collective;
// a point that widens it is journalled with the new union, so a killed sweep keeps it too.
TEST(JsonReporter, OfferedAlgorithmsAreUnitedPerCollective) {
  const JsonFile f;
  const std::string& path = f.path;
  JsonReporter json(running(), path);
  json.begin_run(run("default"));
  PointResult a = point(8, false);
  a.offered_algos = {algorithm_bit(Algorithm::Ring), {"warp9"}};
  PointResult b = point(64, false);
  b.offered_algos = {algorithm_bit(Algorithm::Tree), {}};
  json.point(a);
  json.point(b);
  const AlgorithmOffer both{algorithm_bit(Algorithm::Tree) | algorithm_bit(Algorithm::Ring), {"warp9"}};
  EXPECT_EQ(json.results().runs.at(0).nccl_offered.at(Collective::AllReduce), both);
  EXPECT_EQ(load_results(path).runs.at(0).nccl_offered.at(Collective::AllReduce), both);  // from the journal
}

// Issue 24 (F16): a file saved while a run is measured says "interrupted" for it (what a
// crash leaves), and the run's own status once its group has ended.
TEST(JsonReporter, AnOpenRunIsSavedAsInterruptedUntilItEnds) {
  const JsonFile f;
  const std::string& path = f.path;
  JsonReporter json(running(), path);
  json.begin_run(run("a"));
  EXPECT_EQ(load_results(path).runs.at(0).status, RunStatus::Interrupted);
  json.begin_collective(Collective::AllReduce, "ctx");
  json.point(point(8, false));
  json.end_collective();
  EXPECT_EQ(load_results(path).runs.at(0).status, RunStatus::Interrupted);
  EXPECT_EQ(json.results().runs.at(0).status, RunStatus::Ok);  // in memory it is still ok
  json.run_timing(1.0, 0.1);  // the group ended
  EXPECT_EQ(load_results(path).runs.at(0).status, RunStatus::Ok);
  json.begin_run(run("b"));
  json.fail_run("worker rank 1 did not exit after SIGKILL");
  EXPECT_EQ(load_results(path).runs.at(1).status, RunStatus::Failed);
  json.finish(MetaStatus::Complete);
  const Results saved = load_results(path);
  EXPECT_EQ(saved.runs.at(0).status, RunStatus::Ok);
  EXPECT_EQ(saved.runs.at(1).status, RunStatus::Failed);
}

TEST(ProgressReporter, SilentOffATerminalButSaysNotes) {
  std::FILE* out = std::tmpfile();
  ProgressReporter progress(out);
  EXPECT_FALSE(progress.active());
  progress.begin_sweep(10);
  progress.measuring(3, "allreduce 8 B");
  progress.point(point(8, false));
  progress.note("group pcie FAILED: timeout");
  std::rewind(out);
  char buf[256] = {};
  const std::size_t n = std::fread(buf, 1, sizeof buf - 1, out);
  std::fclose(out);
  EXPECT_EQ(std::string(buf, n), "cctune: group pcie FAILED: timeout\n");
}

}  // namespace
}  // namespace cctune::app
