#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "app/report/printers.hpp"
#include "report_fixtures.hpp"

using namespace cctune;
using namespace cctune::app::report;
using namespace cctune::app::report::testing;

namespace {

const std::vector<std::string> mpi_three{"mpi_shm.json", "mpi_tcp.json", "mpi_np4.json"};

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Compares with a golden file; CCTUNE_UPDATE_GOLDEN=1 rewrites it (then review the diff).
void expect_golden(const std::string& actual, const std::string& name) {
  const std::string path = fixture(name);
  if (std::getenv("CCTUNE_UPDATE_GOLDEN")) std::ofstream(path) << actual;
  EXPECT_EQ(actual, read(path)) << "golden " << path << " differs; CCTUNE_UPDATE_GOLDEN=1 rewrites it";
}

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

}  // namespace

TEST(Printers, TextOfThreeMpiRunsMatchesTheGoldenFile) {
  std::ostringstream out;
  print_text(out, compare_fixtures(mpi_three, {"shm", "tcp", "np4"}));
  expect_golden(out.str(), "compare_golden.txt");
}

TEST(Printers, TextTablesAreAligned) {
  std::ostringstream out;
  print_text(out, compare_fixtures(mpi_three, {"shm", "tcp", "np4"}));
  const auto ls = lines(out.str());
  // Within a table (header line "size ..." up to the blank line) every line has the same length.
  int tables = 0;
  for (std::size_t i = 0; i < ls.size(); ++i) {
    if (ls[i].find("  size  ") == std::string::npos) continue;
    ++tables;
    for (std::size_t j = i + 1; j < ls.size() && !ls[j].empty(); ++j) EXPECT_EQ(ls[j].size(), ls[i].size()) << ls[j];
  }
  EXPECT_EQ(tables, 3);
}

TEST(Printers, TextOfTunedRunShowsSpeedupsAndSkips) {
  std::ostringstream out;
  print_text(out, compare_fixtures({"nccl_tuned.json"}));
  const std::string s = out.str();
  EXPECT_NE(s.find("Tuned vs NCCL default, default: allreduce float32 out-of-place"), std::string::npos) << s;
  EXPECT_NE(s.find("ring/simple/32ch"), std::string::npos);  // read as NCCL spells it ("Simple")
  EXPECT_NE(s.find("ring/ll128"), std::string::npos);  // what NCCL chose
  EXPECT_NE(s.find("default: skipped: 6 points"), std::string::npos) << s;
}

TEST(Printers, TextOfFailedGroupListsReasons) {
  std::ostringstream out;
  print_text(out, compare_fixtures({"mpi_shm.json", "failed_group.json"}));
  const std::string s = out.str();
  EXPECT_NE(s.find("group failed: group default"), std::string::npos) << s;
  EXPECT_NE(s.find("killed by signal 9"), std::string::npos);
  EXPECT_NE(s.find("point failed: allreduce float32 out-of-place 32 KiB auto: MPI_Allreduce returned MPI_ERR_TRUNCATE"), std::string::npos);
  EXPECT_NE(s.find("failed"), std::string::npos);
}

TEST(Printers, CsvHasOneRowPerTableSizeAndSeries) {
  const Comparison c = compare_fixtures(mpi_three, {"shm", "tcp", "np4"});
  std::ostringstream out;
  print_csv(out, c);
  const auto ls = lines(out.str());
  std::size_t expected = 0;
  for (const auto& t : c.tables) expected += t.rows.size() * c.series.size();
  ASSERT_EQ(ls.size(), expected + 1);
  EXPECT_EQ(ls[0], "section,collective,dtype,in_place,size_bytes,series,config,status,busbw_GBps,time_us,ratio,op,root");
  for (const auto& l : ls) EXPECT_EQ(std::count(l.begin(), l.end(), ','), 12) << l;
  EXPECT_NE(out.str().find("compare,allreduce,float32,false,8,tcp,auto,ok,"), std::string::npos);
}

TEST(Printers, JsonCarriesRatiosAndProblems) {
  const Comparison c = compare_fixtures({"mpi_shm.json", "failed_group.json"}, {"ok", "broken"});
  const auto j = to_json(c);
  EXPECT_EQ(j.at("schema"), "cctune.compare/1");
  EXPECT_EQ(j.at("series").size(), 3u);
  EXPECT_EQ(j.at("series")[1].at("status"), "failed");
  const auto& cell = j.at("tables")[0].at("rows")[0].at("cells")[1];
  ASSERT_TRUE(cell.at("ratio").is_number());
  EXPECT_DOUBLE_EQ(cell.at("ratio").get<double>(), *c.tables[0].rows[0].cells[1].ratio);
  EXPECT_GE(j.at("problems").size(), 3u);
  EXPECT_FALSE(j.at("mismatches").empty());
}

TEST(Printers, FormatsRatios) {
  EXPECT_EQ(format_ratio(1.2345), "1.23x");
  EXPECT_EQ(format_ratio(0.0061234), "0.0061x");
  EXPECT_EQ(format_ratio(0), "0.00x");
}
