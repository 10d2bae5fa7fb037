#include <gtest/gtest.h>

#include "app/report/report.hpp"
#include "app/report/report_inputs.hpp"
#include "report_fixtures.hpp"

using namespace cctune;
using namespace cctune::app::report;
using namespace cctune::app::report::testing;
using nlohmann::json;

namespace {

int count(const std::string& haystack, const std::string& needle) {
  int n = 0;
  for (auto pos = haystack.find(needle); pos != std::string::npos; pos = haystack.find(needle, pos + needle.size())) ++n;
  return n;
}

}  // namespace

// The counts the Chromium test (check_report_chromium.py) expects in the parsed DOM.
TEST(ReportHtml, TunedNcclReportHasTheExpectedPlots) {
  const std::string html = render_report_html(compare_fixtures({"nccl_tuned.json"}, {}, true));
  // busbw x2, latency x2, fraction of limit x2, speedup x2, network heatmap x1.
  EXPECT_EQ(count(html, "data-plot=\""), 9);
  EXPECT_EQ(count(html, "data-plot=\"busbw-"), 2);
  EXPECT_EQ(count(html, "data-plot=\"latency-"), 2);
  EXPECT_EQ(count(html, "data-plot=\"limit-"), 2);
  EXPECT_EQ(count(html, "data-plot=\"speedup-"), 2);
  EXPECT_EQ(count(html, "data-plot=\"net-"), 1);
  // busbw lines: allreduce default auto + 4 tuned configs + pcie; allgather auto + 1 tuned + pcie.
  // latency 2 + 2, limit 2 + 2, speedup 1 + 1.
  EXPECT_EQ(count(html, "<path class=\"series-line\""), 9 + 4 + 4 + 2);
  EXPECT_EQ(count(html, "data-cell=\""), 6);
  EXPECT_NE(html.find("NVLink per GPU 450.0 GB/s"), std::string::npos);
  EXPECT_NE(html.find("GPU PCIe 52.5 GB/s"), std::string::npos);
  EXPECT_NE(html.find("NCCL ran ring/ll128/24ch"), std::string::npos);
  EXPECT_NE(html.find("h200-node1: Intel(R) Xeon(R) Platinum 8480+, 8 x NVIDIA H200, 2 RDMA NICs"), std::string::npos);
  EXPECT_NE(html.find("NCCL does not implement tree for allgather"), std::string::npos);
}

TEST(ReportHtml, SelfContained) {
  const std::string html = render_report_html(compare_fixtures({"nccl_tuned.json", "mpi_shm.json"}, {}, true));
  EXPECT_NE(html.find("Content-Security-Policy\" content=\"default-src 'none'"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  // The only http:// is the SVG namespace name, which is never fetched.
  EXPECT_EQ(count(html, "http://"), count(html, "xmlns=\"http://www.w3.org/2000/svg\""));
  EXPECT_EQ(html.find(" src="), std::string::npos);
  EXPECT_EQ(html.find("url("), std::string::npos);
}

TEST(ReportHtml, FailedGroupsAndMissingPartsRender) {
  const std::string html = render_report_html(compare_fixtures({"mpi_shm.json", "failed_group.json"}, {}, true));
  EXPECT_EQ(count(html, "data-problem=\"group failed\""), 2);
  EXPECT_EQ(count(html, "data-problem=\"point failed\""), 1);
  EXPECT_NE(html.find("No topology recorded"), std::string::npos);
  EXPECT_NE(html.find("No network probe"), std::string::npos);
  EXPECT_NE(html.find("No tuned points"), std::string::npos);
}

TEST(ReportHtml, SweepEntryPointTakesResultsInMemory) {
  const auto files = load_fixtures({"mpi_np4.json"});
  const std::string html = render_report_html(std::vector<Results>{files[0].results}, {});
  EXPECT_EQ(count(html, "data-plot=\"busbw-"), 3);
  EXPECT_NE(html.find("<td>results #1</td>"), std::string::npos);
  // Labels for a single group come from the group.
  EXPECT_NE(html.find("data-series=\"default\""), std::string::npos);
}

TEST(ReportHtml, EscapesStringsFromTheResults) {
  auto files = load_fixtures({"mpi_shm.json"});
  files[0].results.runs[0].group = "<b>evil</b>";
  files[0].results.topology = json{{"hostname", "<script>x</script>"}, {"gpus", json::array({json{{"name", "a&b"}}})}};
  const std::string html = render_report_html(build_comparison(std::move(files), {{}, true}));
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_EQ(html.find("<b>evil"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;x&lt;/script&gt;"), std::string::npos);
}

TEST(ReportHtml, ResultsWithoutRunsOrWithOddNetRender) {
  Results r;
  r.meta.status = MetaStatus::Failed;
  r.net = json{{"pairs", json::array({json{{"src", 0}, {"dst", 5000}, {"bw_GBps", 1.0}}, json{{"src", 0}, {"dst", 300}, {"bw_GBps", 1.0}}})}};
  r.topology = json::array({1, "two", nullptr});
  const std::string html = render_report_html(std::vector<Results>{r}, {});
  EXPECT_NE(html.find("No config groups"), std::string::npos);
  EXPECT_NE(html.find("301 ranks: too many for a heatmap"), std::string::npos);
  EXPECT_NE(html.find("1 entries without ranks or bandwidth"), std::string::npos);  // rank 5000
  EXPECT_EQ(count(html, "data-plot=\""), 0);
}

TEST(ReportInputs, NetPairsInSeveralShapes) {
  auto pairs = read_net_pairs(json::array({json{{"src", 0}, {"dst", 1}, {"bw_GBps", 12.5}},
                                           json{{"src_rank", 1}, {"dst_rank", 0}, {"avg_Gbps", 80.0}},
                                           json{{"src", 2}, {"dst", 3}},  // no bandwidth
                                           json("garbage")}));
  ASSERT_EQ(pairs.pairs.size(), 2u);
  EXPECT_DOUBLE_EQ(pairs.pairs[1].GBps, 10.0);
  EXPECT_EQ(pairs.unreadable, 2);  // the entry without bandwidth and "garbage"
  auto nested = read_net_pairs(json{{"tcp", {{"results", json::array({json{{"first", 0}, {"second", 2}, {"bandwidth", json::array({
      json{{"size_bytes", 8}, {"avg_GBps", 1.0}}, json{{"size_bytes", 1024}, {"avg_GBps", 3.0}}})}}})}}}});
  ASSERT_EQ(nested.pairs.size(), 1u);
  EXPECT_EQ(nested.pairs[0].dst, 2);
  EXPECT_DOUBLE_EQ(nested.pairs[0].GBps, 3.0);  // the largest size's bandwidth
  EXPECT_TRUE(read_net_pairs(json()).pairs.empty());
  EXPECT_TRUE(read_net_pairs(json{{"error", "no RDMA device"}}).pairs.empty());
}

TEST(ReportInputs, PhysicalLimitPicksTheLinkOfTheRun) {
  const auto files = load_fixtures({"nccl_tuned.json"});
  const auto& r = files[0].results;
  EXPECT_DOUBLE_EQ(physical_limit(r.topology, r.runs[0])->GBps, 450.0);
  EXPECT_EQ(physical_limit(r.topology, r.runs[1])->what, "GPU PCIe");
  RunResult net = r.runs[0];
  net.env = {{"NCCL_P2P_DISABLE", "1"}, {"NCCL_SHM_DISABLE", "1"}};
  EXPECT_EQ(physical_limit(r.topology, net)->what, "NIC port");
  RunResult mpi = r.runs[0];
  mpi.backend = "mpi";
  EXPECT_FALSE(physical_limit(r.topology, mpi));
  EXPECT_FALSE(physical_limit(json("not an object"), r.runs[0]));
  EXPECT_FALSE(physical_limit(json(), r.runs[0]));
}

TEST(ReportInputs, GenericJsonRendering) {
  const std::string h = json_to_html(json{{"list", {1, 2, 3}}, {"rows", json::array({json{{"a", 1}}, json{{"b", "x"}}})}, {"none", nullptr}});
  EXPECT_NE(h.find("1, 2, 3"), std::string::npos);
  EXPECT_NE(h.find("<th>a</th><th>b</th>"), std::string::npos);
  json deep = 1;
  for (int i = 0; i < 20; ++i) deep = json{{"k", deep}};
  EXPECT_LT(json_to_html(deep).size(), 2000u);  // depth-limited
}
