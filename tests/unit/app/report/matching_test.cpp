#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "app/report/matching.hpp"
#include "core/error.hpp"
#include "report_fixtures.hpp"

using namespace cctune;
using namespace cctune::app::report;
using namespace cctune::app::report::testing;

namespace {

const std::vector<std::string> mpi_three{"mpi_shm.json", "mpi_tcp.json", "mpi_np4.json"};

// The busbw of the NCCL-default point at a key, read straight from the JSON file.
double busbw_in_file(const std::string& name, const TableKey& k, std::uint64_t size) {
  std::ifstream in(fixture(name));
  const auto j = nlohmann::json::parse(in);
  for (const auto& p : j.at("runs").at(0).at("points"))
    if (p.at("collective") == to_string(k.collective) && p.at("dtype") == to_string(k.dtype) && p.at("in_place") == k.in_place &&
        p.at("size_bytes") == size && p.at("config").at("algo") == "auto")
      return p.at("busbw_GBps").get<double>();
  ADD_FAILURE() << "no point " << describe(k) << " " << size << " in " << name;
  return 0;
}

bool contains(const std::vector<std::string>& v, const std::string& needle) {
  for (const auto& s : v)
    if (s.find(needle) != std::string::npos) return true;
  return false;
}

std::string one_line_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.describe();
  }
  ADD_FAILURE() << "no UsageError";
  return {};
}

}  // namespace

TEST(Matching, ThreeMpiRunsLineUpBySizeWithRatiosToTheFirst) {
  const Comparison c = compare_fixtures(mpi_three, {"shm", "tcp", "np4"});
  ASSERT_EQ(c.series.size(), 3u);
  EXPECT_EQ(c.series[2].label, "np4");
  ASSERT_FALSE(c.tables.empty());
  int ratios = 0;
  for (const auto& t : c.tables) {
    for (const auto& r : t.rows) {
      ASSERT_EQ(r.cells.size(), 3u);
      for (std::size_t s = 0; s < 3; ++s) {
        if (!r.cells[s].point) continue;
        EXPECT_EQ(r.cells[s].point->size_bytes, r.size_bytes);
        EXPECT_EQ(r.cells[s].point->collective, t.key.collective);
      }
      const PointResult* base = r.cells[0].point;
      for (std::size_t s = 1; s < 3; ++s) {
        const PointResult* p = r.cells[s].point;
        const bool both_ok = base && p && base->status == PointStatus::Ok && p->status == PointStatus::Ok;
        ASSERT_EQ(r.cells[s].ratio.has_value(), both_ok) << describe(t.key) << " " << r.size_bytes;
        if (!both_ok) continue;
        const double expected = busbw_in_file(mpi_three[s], t.key, r.size_bytes) / busbw_in_file(mpi_three[0], t.key, r.size_bytes);
        EXPECT_NEAR(*r.cells[s].ratio, expected, 1e-12);
        ++ratios;
      }
    }
  }
  // With 4 ranks, 8 B allgather is less than one float per rank: np4 skipped size 0 instead.
  const Table& ag = c.tables[1];
  ASSERT_EQ(ag.key.collective, Collective::AllGather);
  EXPECT_EQ(ag.rows[0].size_bytes, 0u);
  EXPECT_EQ(ag.rows[0].cells[0].point, nullptr);
  ASSERT_NE(ag.rows[0].cells[2].point, nullptr);
  EXPECT_EQ(ag.rows[0].cells[2].point->status, PointStatus::Skipped);
  EXPECT_EQ(ag.rows[1].cells[2].point, nullptr);
  EXPECT_GT(ratios, 20);
  EXPECT_TRUE(c.tuned.empty());  // MPI runs have no tuned configs
}

TEST(Matching, DifferentRankCountsAreListedNotHidden) {
  const Comparison c = compare_fixtures(mpi_three, {"shm", "tcp", "np4"});
  EXPECT_TRUE(contains(c.mismatches, "nranks differ: shm 2, tcp 2, np4 4")) << ::testing::PrintToString(c.mismatches);
}

TEST(Matching, DefaultLabelsComeFromFileNames) {
  const Comparison c = compare_fixtures({"mpi_shm.json", "mpi_tcp.json"});
  EXPECT_EQ(c.series[0].label, "mpi_shm");
  EXPECT_EQ(c.series[1].label, "mpi_tcp");
  EXPECT_EQ(c.describe_series(0).rfind("mpi_shm = mpi_shm.json (mpi, group ", 0), 0u) << c.describe_series(0);
}

TEST(Matching, WrongNumberOfLabelsIsAUsageError) {
  const std::string e = one_line_error([] { compare_fixtures(mpi_three, {"a", "b"}); });
  EXPECT_NE(e.find("--labels has 2 names for 3 files"), std::string::npos) << e;
  EXPECT_NE(one_line_error([] { compare_fixtures(mpi_three, {"a", "", "c"}); }).find("empty"), std::string::npos);
}

TEST(Matching, FilesWithNothingInCommonAreRejectedNamingTheFile) {
  const std::string e = one_line_error([] { compare_fixtures({"mpi_shm.json", "disjoint.json"}); });
  EXPECT_NE(e.find("disjoint.json"), std::string::npos) << e;
  EXPECT_NE(e.find("no collective/dtype/size in common with mpi_shm.json"), std::string::npos) << e;
  EXPECT_NE(e.find("float64"), std::string::npos) << e;
  EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  // The report shows them side by side anyway.
  const Comparison c = compare_fixtures({"mpi_shm.json", "disjoint.json"}, {}, true);
  EXPECT_TRUE(contains(c.mismatches, "not measured in disjoint")) << ::testing::PrintToString(c.mismatches);
}

TEST(Matching, BadFilesGiveOneLineErrorsNamingTheFile) {
  for (const std::string name : {"bad_schema.json", "truncated.json", "no_such_file.json"}) {
    std::string e;
    try {
      load_fixtures({name});
      ADD_FAILURE() << name << " loaded";
    } catch (const Error& err) {
      e = err.describe();
    }
    EXPECT_NE(e.find(name), std::string::npos) << e;
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  }
}

TEST(Matching, FailedGroupsBecomeProblemsAndMissingCells) {
  const Comparison c = compare_fixtures({"mpi_shm.json", "failed_group.json"}, {"ok", "broken"});
  ASSERT_EQ(c.series.size(), 3u);  // failed_group.json has two groups
  EXPECT_EQ(c.series[1].label, "broken/default");
  EXPECT_EQ(c.series[2].label, "broken/second");
  int group_failures = 0, point_failures = 0;
  for (const auto& p : c.problems) {
    group_failures += p.kind == "group failed";
    point_failures += p.kind == "point failed";
  }
  EXPECT_EQ(group_failures, 2);
  EXPECT_EQ(point_failures, 1);
  EXPECT_TRUE(contains(c.mismatches, "sweep status is 'interrupted'"));
  EXPECT_TRUE(contains(c.mismatches, "broken/default lacks"));
  bool saw_failed_cell = false, saw_missing_cell = false;
  for (const auto& t : c.tables)
    for (const auto& r : t.rows) {
      const Cell& cell = r.cells[1];
      if (cell.point && cell.point->status == PointStatus::Failed) saw_failed_cell = true;
      if (!cell.point) saw_missing_cell = true;
      if (!cell.point || cell.point->status != PointStatus::Ok) {
        EXPECT_FALSE(cell.ratio);
      }
      EXPECT_EQ(r.cells[2].point, nullptr);
    }
  EXPECT_TRUE(saw_failed_cell);
  EXPECT_TRUE(saw_missing_cell);
}

TEST(Matching, TunedPointsAreComparedWithTheDefaultOnes) {
  const Comparison c = compare_fixtures({"nccl_tuned.json"});
  ASSERT_EQ(c.series.size(), 2u);
  EXPECT_EQ(c.series[0].label, "default");
  EXPECT_EQ(c.series[1].label, "pcie");
  ASSERT_EQ(c.tuned.size(), 2u);  // allreduce and allgather of the default group
  const TunedTable& ar = c.tuned[0];
  EXPECT_EQ(ar.key.collective, Collective::AllReduce);
  ASSERT_EQ(ar.rows.size(), 6u);
  const TunedRow& big = ar.rows.back();
  EXPECT_EQ(big.size_bytes, 32u << 20);
  EXPECT_EQ(describe(big.best_tuned->config), "ring/simple/32ch");  // the fixture spells it as NCCL does: "Simple"
  ASSERT_TRUE(big.speedup);
  EXPECT_DOUBLE_EQ(*big.speedup, big.default_point->batch_us / big.best_tuned->batch_us);
  EXPECT_GT(*big.speedup, 1.0);
  // Tree is skipped for allgather: one grouped problem with the reason, not six.
  int skipped = 0;
  for (const auto& p : c.problems)
    if (p.kind == "skipped") {
      ++skipped;
      EXPECT_EQ(p.reason, "NCCL does not implement tree for allgather");
      EXPECT_EQ(p.what.rfind("6 points, 1 KiB..32 MiB", 0), 0u) << p.what;
    }
  EXPECT_EQ(skipped, 1);
}

TEST(Matching, PerGroupLabelsForOneFile) {
  const Comparison c = compare_fixtures({"nccl_tuned.json"}, {"nvlink", "pcie"});
  EXPECT_EQ(c.series[0].label, "nvlink");
  EXPECT_EQ(c.series[1].label, "pcie");
}

TEST(Matching, TestModeRunsAreMarked) {
  auto files = load_fixtures({"mpi_shm.json", "mpi_tcp.json"});
  files[1].results.runs[0].test_mode = test_mode_shared_gpu;
  const Comparison c = build_comparison(std::move(files), {});
  EXPECT_EQ(c.test_mode_of_series(0), "");
  EXPECT_EQ(c.test_mode_of_series(1), "shared-gpu");
  EXPECT_EQ(c.describe_series(0).find("TEST MODE"), std::string::npos);
  EXPECT_NE(c.describe_series(1).find("TEST MODE shared-gpu: not performance"), std::string::npos) << c.describe_series(1);
}

TEST(Matching, DescribesConfigs) {
  EXPECT_EQ(describe(PointConfig{}), "auto");
  EXPECT_EQ(describe(PointConfig{Algorithm::Ring, Protocol::LL, 0, false}), "ring/ll");
  EXPECT_EQ(describe(PointConfig{std::nullopt, std::nullopt, 16, false}), "16ch");
  EXPECT_EQ(describe(PointConfig{Algorithm::Tree, std::nullopt, 0, false}), "tree");
  EXPECT_TRUE((PointConfig{std::nullopt, std::nullopt, 0, true}).is_default());
}
