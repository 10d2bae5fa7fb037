#include "app/run/resume.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string_view>

#include "core/error.hpp"
#include "core/results_json.hpp"
#include "runtime/sweep_plan.hpp"
#include "support/thread_comm.hpp"
#include "unit/runtime/sample_plan.hpp"

namespace cctune::app {
namespace {

using runtime::samples::grid_of;

// meta.settings as cctune sweep writes it: a resolved plan's JSON.
nlohmann::json settings(const std::string& dtype = "float32") {
  runtime::SweepPlan plan;
  plan.backend = runtime::BackendChoice::Mpi;
  grid_of(plan).collectives = {Collective::AllReduce, Collective::AllGather};
  grid_of(plan).sizes = {8, 64};
  grid_of(plan).dtypes = {parse_dtype(dtype)};
  plan.space.placements = {false, true};
  return runtime::to_json(plan);
}

PointResult point(Collective c, std::uint64_t size, bool in_place, PointStatus status = PointStatus::Ok) {
  PointResult p;
  p.collective = c;
  p.size_bytes = size;
  p.in_place = in_place;
  p.status = status;
  if (status == PointStatus::Ok) {  // 1 us per batch; the bandwidths it gives on 2 ranks
    p.batch_us = 1;
    p.algbw_GBps = bandwidth(c, size, p.batch_us, 2).algbw_GBps;
    p.busbw_GBps = bandwidth(c, size, p.batch_us, 2).busbw_GBps;
  }
  return p;
}

// The plan that measures exactly the points of `r` (each point's bandwidth counts its size).
PlannedPoints plan_of(const Results& r) {
  PlannedPoints planned;
  for (const auto& run : r.runs)
    for (const auto& p : run.points) planned.emplace(key_of(run, p), p.size_bytes);
  return planned;
}

Results interrupted() {
  Results r;
  r.meta.settings = ResultSection(settings());
  r.meta.start_time = "2025-01-01T00:00:00Z";
  r.meta.status = MetaStatus::Interrupted;
  r.meta.hostnames = {"a"};
  RunResult run;
  run.backend = "mpi";
  run.group = "default";
  run.nranks = 2;
  run.nnodes = 1;
  run.status = RunStatus::Interrupted;
  run.points = {point(Collective::AllReduce, 8, false), point(Collective::AllReduce, 8, true),
                point(Collective::AllReduce, 64, false, PointStatus::Skipped),
                point(Collective::AllReduce, 64, true, PointStatus::Failed)};
  r.runs.push_back(run);
  RunResult other = run;
  other.group = "pcie";
  other.points = {point(Collective::AllGather, 8, false)};
  r.runs.push_back(other);
  return r;
}

RunResult fresh_run(const std::string& group = "default") {
  RunResult run;
  run.backend = "mpi";
  run.group = group;
  run.nranks = 2;
  run.nnodes = 1;
  return run;
}

TEST(Resume, CompletedAndSkippedPointsCountAsMeasuredFailedOnesDoNot) {
  const auto s = ResumeState::from_results(interrupted(), "d", settings(), 2, 1);
  const RunResult run = fresh_run();
  EXPECT_TRUE(s.measured(key_of(run, point(Collective::AllReduce, 8, false))));
  EXPECT_TRUE(s.measured(key_of(run, point(Collective::AllReduce, 64, false))));
  EXPECT_FALSE(s.measured(key_of(run, point(Collective::AllReduce, 64, true))));
  EXPECT_FALSE(s.measured(key_of(run, point(Collective::AllGather, 8, false))));  // that one is in group pcie
  EXPECT_TRUE(s.measured(key_of(fresh_run("pcie"), point(Collective::AllGather, 8, false))));
  auto forced = point(Collective::AllReduce, 8, false);
  forced.config.algo = Algorithm::Ring;
  EXPECT_FALSE(s.measured(key_of(run, forced)));
  EXPECT_EQ(s.measured_count(), 4u);
}

TEST(Resume, ContinuedRunKeepsEarlierPointsAndDropsFailedOnes) {
  const auto s = ResumeState::from_results(interrupted(), "d", settings(), 2, 1);
  const RunResult run = s.continue_run(fresh_run());
  EXPECT_EQ(run.status, RunStatus::Ok);
  ASSERT_EQ(run.points.size(), 3u);
  for (const auto& p : run.points) EXPECT_NE(p.status, PointStatus::Failed);
  EXPECT_TRUE(s.continue_run(fresh_run("nvlink")).points.empty());
}

TEST(Resume, CarryOverKeepsStartTimeNotesTheResumeAndLeavesContinuedRunsOut) {
  const auto s = ResumeState::from_results(interrupted(), "d", settings(), 2, 1);
  Meta fresh;
  fresh.start_time = "2025-01-02T00:00:00Z";
  fresh.argv = {"cctune", "sweep", "--resume", "d"};
  fresh.settings = ResultSection(settings());
  const Results r = s.carry_over(fresh, {{"mpi", "default"}});
  EXPECT_EQ(r.meta.start_time, "2025-01-01T00:00:00Z");
  const std::vector<ResumeNote>& history = resume_history_of(r);
  ASSERT_EQ(history.size(), 1u);
  EXPECT_EQ(history[0].start_time, "2025-01-02T00:00:00Z");
  EXPECT_EQ(history[0].previous_status, "interrupted");
  EXPECT_EQ(history[0].points_kept, 4u);
  EXPECT_EQ(history[0].argv, fresh.argv);
  ASSERT_EQ(r.runs.size(), 1u);
  EXPECT_EQ(r.runs[0].group, "pcie");
  // A second resume appends to the history (the note survives the JSON round trip).
  Results again = nlohmann::json(r).get<Results>();
  auto s2 = ResumeState::from_results(again, "d", settings(), 2, 1);
  EXPECT_EQ(resume_history_of(s2.carry_over(fresh, {})).size(), 2u);
}

TEST(Resume, DifferentSettingsAreAOneLineUsageErrorNamingTheDifference) {
  try {
    ResumeState::from_results(interrupted(), "out", settings("float64"), 2, 1);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_EQ(e.what_only(), "--resume out: dtype is float32 there, float64 now");
    EXPECT_NE(e.fix().find("meta.argv"), std::string::npos);
  }
  auto fewer = settings();
  fewer["collectives"] = {"allreduce"};
  EXPECT_THROW(ResumeState::from_results(interrupted(), "out", fewer, 2, 1), UsageError);
  try {
    ResumeState::from_results(interrupted(), "out", settings(), 4, 1);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_EQ(e.what_only(), "--resume out: measured with 2 ranks there, 4 now");
  }
  EXPECT_THROW(ResumeState::from_results(interrupted(), "out", settings(), 2, 2), UsageError);
  // Sizes and stopping rules may change (a resumed sweep may extend the range).
  auto more = settings();
  more["sizes_bytes"] = {8u, 64u, 512u};  // unsigned, as parsed from a file
  more["max_time_s"] = 2.0;
  EXPECT_NO_THROW(ResumeState::from_results(interrupted(), "out", more, 2, 1));
}

TEST(Resume, DtypeOpAndRootListsMustMatchAndKeysKeepThemApart) {
  // One value stays the string older results hold; a list differs from it and is named.
  auto lists = settings();
  lists["dtype"] = {"float32", "int32"};
  try {
    ResumeState::from_results(interrupted(), "out", lists, 2, 1);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_EQ(e.what_only(), "--resume out: dtype is float32 there, float32,int32 now");
  }
  // A root belongs to a plan with a rooted collective; there another root is another plan.
  Results rooted_before = interrupted();
  auto rooted = settings();
  rooted["collectives"] = {"allreduce", "reduce"};
  rooted["root"] = 0;
  rooted_before.meta.settings = ResultSection(rooted);
  rooted["root"] = 1;
  try {
    ResumeState::from_results(rooted_before, "out", rooted, 2, 1);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_EQ(e.what_only(), "--resume out: root is 0 there, 1 now");
  }
  // Points of another op or root are other points.
  const RunResult run = fresh_run();
  PointResult sum = point(Collective::Reduce, 8, false);
  sum.root = 0;
  PointResult max = sum;
  max.op = ReduceOp::Max;
  PointResult root1 = sum;
  root1.root = 1;
  PointResult int32 = sum;
  int32.dtype = DType::Int32;
  std::set<PointKey> keys{key_of(run, sum), key_of(run, max), key_of(run, root1), key_of(run, int32)};
  EXPECT_EQ(keys.size(), 4u);
}

class TempDir {
 public:
  TempDir() : path_(std::filesystem::temp_directory_path() / ("cctune-resume-" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string str() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

TEST(Resume, LoadReadsOnRankZeroAndEveryRankGetsTheSameLookup) {
  TempDir dir;
  save_results(interrupted(), dir.str() + "/results.json");
  std::atomic<int> agreed{0};
  testing::run_ranks(3, [&](RankComm& comm) {
    const auto s = ResumeState::load(comm, dir.str(), settings(), plan_of(interrupted()), 2, 1);
    if (s.measured_count() == 4 && s.measured(key_of(fresh_run(), point(Collective::AllReduce, 8, true)))) ++agreed;
  });
  EXPECT_EQ(agreed, 3);
}

TEST(Resume, LoadErrorsAreRaisedOnEveryRank) {
  TempDir dir;
  std::atomic<int> missing{0}, corrupt{0};
  testing::run_ranks(2, [&](RankComm& comm) {
    try {
      ResumeState::load(comm, dir.str(), settings(), plan_of(interrupted()), 2, 1);
    } catch (const UsageError& e) {
      if (e.what_only().find("no results.json") != std::string::npos) ++missing;
    }
  });
  std::filesystem::path p = dir.str() + "/results.json";
  FILE* f = std::fopen(p.c_str(), "w");
  std::fputs("{\"schema\": \"cctune.results/1\", \"meta\": {", f);
  std::fclose(f);
  testing::run_ranks(2, [&](RankComm& comm) {
    try {
      ResumeState::load(comm, dir.str(), settings(), plan_of(interrupted()), 2, 1);
    } catch (const UsageError& e) {
      if (e.what_only().find("not valid JSON") != std::string::npos) ++corrupt;
    }
  });
  EXPECT_EQ(missing, 2);
  EXPECT_EQ(corrupt, 2);
}

// Issue 15 item 13: a tampered file's points were carried over as they stood.
TEST(Resume, TamperedPointsAndOtherMeasurementSettingsAreRefused) {
  auto tampered = interrupted();
  tampered.runs[0].points[0].busbw_GBps = 12345;  // algbw stays 0
  EXPECT_THROW(ResumeState::from_results(tampered, "out", settings(), 2, 1), UsageError);
  auto alien = interrupted();
  alien.runs[0].points[0].size_bytes = 12;  // not among the sizes
  EXPECT_THROW(ResumeState::from_results(alien, "out", settings(), 2, 1), UsageError);
  auto consistent = interrupted();
  consistent.runs[0].points[0].algbw_GBps = 10;
  consistent.runs[0].points[0].busbw_GBps = 10;  // allreduce on 2 ranks: factor 2*(2-1)/2 = 1
  EXPECT_NO_THROW(ResumeState::from_results(consistent, "out", settings(), 2, 1));
  for (const char* key : {"iters", "warmup_iters", "check"}) {
    auto before = settings(), now = settings();
    const bool flag = std::string_view(key) == "check";
    before[key] = flag ? nlohmann::json(false) : nlohmann::json(5);
    now[key] = flag ? nlohmann::json(true) : nlohmann::json(6);
    auto r = interrupted();
    r.meta.settings = ResultSection(before);
    try {
      ResumeState::from_results(r, "out", now, 2, 1);
      ADD_FAILURE() << key << " differs but was accepted";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    }
  }
}

// Issue #23: the recorded settings are read as a plan and compared as values.
TEST(Resume, SettingsAreComparedAsTypedPlans) {
  // One dtype as a one-element list is the same plan as the string cctune writes.
  Results listed = interrupted();
  auto one_dtype = settings();
  one_dtype["dtype"] = {"float32"};
  listed.meta.settings = ResultSection(one_dtype);
  EXPECT_NO_THROW(ResumeState::from_results(listed, "out", settings(), 2, 1));
  // Settings that are no plan are named in one line, not compared key by key.
  Results edited = interrupted();
  auto no_backend = settings();
  no_backend.erase("backend");
  edited.meta.settings = ResultSection(no_backend);
  try {
    ResumeState::from_results(edited, "out", settings(), 2, 1);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what_only()).rfind("--resume out: meta.settings is not a sweep's plan: ", 0), 0u) << e.what_only();
    EXPECT_EQ(std::string(e.what_only()).find('\n'), std::string::npos);
  }
}

// Issue #23: meta.settings.resumed is read through its typed accessor; another form is one line
// naming the field, and earlier notes are carried forward as written.
TEST(Resume, HistoryIsTypedAndCarriedAsWritten) {
  auto with_history = [](const nlohmann::json& history) {
    Results r = interrupted();
    auto s = settings();
    s["resumed"] = history;
    r.meta.settings = ResultSection(s);
    return r;
  };
  auto refusal = [](const Results& r) {
    try {
      ResumeState::from_results(r, "out", settings(), 2, 1);
    } catch (const UsageError& e) {
      EXPECT_EQ(std::string(e.what_only()).find('\n'), std::string::npos);
      return std::string(e.what_only());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(refusal(with_history("yesterday")), "--resume out: meta.settings.resumed: expected an array, got a string");
  const nlohmann::json note = {{"start_time", "t0"}, {"previous_status", "interrupted"}, {"previous_end_time", "t1"},
                               {"points_kept", 3}, {"argv", {"cctune", "sweep"}}, {"host", "a newer cctune's field"}};
  auto bad = note;
  bad["points_kept"] = "3";
  EXPECT_EQ(refusal(with_history(nlohmann::json::array({bad}))),
            "--resume out: meta.settings.resumed[0].points_kept: expected an integer, got a string");
  const Results before = with_history(nlohmann::json::array({note}));
  ASSERT_EQ(resume_history_of(before).size(), 1u);
  EXPECT_EQ(resume_history_of(before)[0].argv, (std::vector<std::string>{"cctune", "sweep"}));
  const Results after = ResumeState::from_results(before, "out", settings(), 2, 1).carry_over(Meta{}, {});
  EXPECT_EQ(after.meta.settings.json()["resumed"][0], note);  // fields this build does not read survive
  EXPECT_EQ(resume_history_of(after).size(), 2u);
  // Settings that record no plan at all are named as such.
  Results none = interrupted();
  none.meta.settings = ResultSection();
  EXPECT_EQ(refusal(none), "--resume out: meta.settings is not a sweep's plan: it is null");
}

// The sizes a carried point may have are those enumerate_points makes of the plan's: on 4 ranks
// an 8 B allgather moves 16 B (one float per rank), and only that size is the plan's.
TEST(Resume, CarriedSizesAreThoseThePlanEnumerates) {
  Results r = interrupted();
  r.runs.resize(1);
  r.runs[0].nranks = 4;
  r.runs[0].points = {point(Collective::AllGather, 16, false, PointStatus::Skipped)};
  EXPECT_NO_THROW(ResumeState::from_results(r, "out", settings(), 4, 1));
  r.runs[0].points = {point(Collective::AllGather, 8, false, PointStatus::Skipped)};
  try {
    ResumeState::from_results(r, "out", settings(), 4, 1);
    FAIL() << "an 8 B allgather point on 4 ranks was accepted";
  } catch (const UsageError& e) {
    EXPECT_EQ(e.what_only(), "--resume out: a allgather point of 8 bytes is not among this sweep's allgather float32 sizes");
  }
}

// F8 (review 2026-11-24, r1): an edited file carried an invented algbw, a broadcast point into
// an allreduce sweep, an NCCL config into an MPI sweep and a whole run of another backend.
TEST(Resume, CarriedPointsMustMatchThePlanExactly) {
  const PlannedPoints planned = plan_of(interrupted());
  auto refused_naming = [&](const Results& r, const std::string& field) {
    try {
      ResumeState::from_results(r, "out", settings(), 2, 1, &planned);
      ADD_FAILURE() << "accepted; expected a refusal naming " << field;
    } catch (const UsageError& e) {
      EXPECT_NE(e.what_only().find(field), std::string::npos) << e.what_only();
    }
  };
  EXPECT_NO_THROW(ResumeState::from_results(interrupted(), "out", settings(), 2, 1, &planned));
  auto fast = interrupted();
  fast.runs[0].points[0].algbw_GBps = 999;
  fast.runs[0].points[0].busbw_GBps = 999;
  fast.runs[0].points[0].batch_us = 0.0001;
  refused_naming(fast, "algbw 999");
  auto bcast = interrupted();
  bcast.runs[0].points[1] = point(Collective::Broadcast, 8, true);
  refused_naming(bcast, "collective broadcast");
  auto config = interrupted();
  config.runs[0].points[0].config = PointConfig{Algorithm::Ring, Protocol::LL, 32, false};
  refused_naming(config, "config ring/ll/32");
  auto evil = interrupted();
  evil.runs[1].backend = "nccl";
  evil.runs[1].group = "evil";
  refused_naming(evil, "run nccl/evil");
  auto dtype = interrupted();
  dtype.runs[0].points[0].dtype = DType::Float64;
  refused_naming(dtype, "dtype float64");
}

TEST(Resume, CommandReplacesOutputAndEarlierResume) {
  EXPECT_EQ(resume_command({"cctune", "sweep", "-b", "8", "-o", "out", "--collectives", "allreduce"}, "out"),
            "cctune sweep -b 8 --collectives allreduce --resume out");
  EXPECT_EQ(resume_command({"/x/cctune", "sweep", "--output=a b", "--resume", "old", "--op", "max"}, "a b"),
            "/x/cctune sweep --op max --resume 'a b'");
  // The CSV exists now and is never overwritten: the resumed sweep is told of no --csv.
  EXPECT_EQ(resume_command({"cctune", "sweep", "--csv", "p.csv", "-e", "1M", "--csv=q.csv"}, "out"), "cctune sweep -e 1M --resume out");
}

}  // namespace
}  // namespace cctune::app
