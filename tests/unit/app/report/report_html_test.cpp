#include <gtest/gtest.h>

#include "app/report/report.hpp"
#include "app/report/report_inputs.hpp"
#include "net/probe_result.hpp"
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

// A pair and a net section as the probe writes them, through the probe's own writer
// (net/probe_result.hpp); what a real probe writes is in nccl_tuned.json and tests/mpi/net.
net::ProbePair probe_pair(int initiator, int responder, double GBps) {
  net::ProbePair p;
  p.initiator = initiator;
  p.responder = responder;
  p.initiator_host = p.responder_host = "node";
  p.same_host = true;
  p.transport = "tcp";
  p.initiator_endpoint = p.responder_endpoint = "lo 127.0.0.1";
  p.bandwidth = {net::BandwidthStats{1 << 16, 50, 0.001, GBps / 2, GBps}, net::BandwidthStats{1 << 20, 50, 0.01, GBps, GBps}};
  p.latency = net::LatencyStats{};
  return p;
}

json probe_section(int nranks, const std::vector<net::ProbePair>& pairs) {
  net::ProbeSummary summary;
  summary.pairs_measured = pairs.size();
  return {{"schema", net::net_schema}, {"transport", "tcp"}, {"transport_reason", "--probe tcp"}, {"nranks", nranks},
          {"options", {{"latency_bytes", 2}, {"gpu_buffers", false}}}, {"schedule", {{"rounds", nranks}}},
          {"endpoints", json::array()}, {"pairs", pairs}, {"summary", summary}};
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
  files[0].results.topology = ResultSection(json{{"hostname", "<script>x</script>"}, {"gpus", json::array({json{{"name", "a&b"}}})}});
  const std::string html = render_report_html(build_comparison(std::move(files), {{}, true}));
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_EQ(html.find("<b>evil"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;x&lt;/script&gt;"), std::string::npos);
}

TEST(ReportHtml, ResultsWithoutRunsOrWithOddNetRender) {
  Results r;
  r.meta.status = MetaStatus::Failed;
  json net = probe_section(301, {probe_pair(0, 300, 1.0)});
  r.net = ResultSection(net);
  r.topology = ResultSection(json::array({1, "two", nullptr}));
  std::string html = render_report_html(std::vector<Results>{r}, {});
  EXPECT_NE(html.find("No config groups"), std::string::npos);
  EXPECT_NE(html.find("301 ranks: too many for a heatmap"), std::string::npos);
  EXPECT_EQ(count(html, "data-plot=\""), 0);
  // A section that is not the probe's: one line naming the field, and its fields still shown.
  net["pairs"][0]["responder"] = "300";
  r.net = ResultSection(net);
  html = render_report_html(std::vector<Results>{r}, {});
  EXPECT_NE(html.find("results.net is not a network probe's section: net.pairs[0].responder: expected an integer, got a string"),
            std::string::npos);
  EXPECT_NE(html.find("all network fields"), std::string::npos);
}

// A results file holding only `net`.
NetPairs net_pairs_of(json net) {
  Results r;
  r.net = ResultSection(std::move(net));
  return read_net_pairs(r);
}

TEST(ReportInputs, NetPairsAreTheProbesInitiatorToResponder) {
  auto failed = probe_pair(0, 2, 0);
  failed.bandwidth.clear();
  failed.error = "connect: refused";
  const auto pairs = net_pairs_of(probe_section(3, {probe_pair(0, 1, 12.5), probe_pair(1, 2, 10.0), failed}));
  EXPECT_EQ(pairs.error, "");
  EXPECT_EQ(pairs.transport, "tcp");
  EXPECT_EQ(pairs.nranks, 3);
  ASSERT_EQ(pairs.pairs.size(), 2u);
  EXPECT_EQ(pairs.pairs[1].src, 1);
  EXPECT_EQ(pairs.pairs[1].dst, 2);
  EXPECT_DOUBLE_EQ(pairs.pairs[0].GBps, 12.5);  // the largest size's bandwidth
  EXPECT_EQ(pairs.failed, 1);
  // Key guessing is gone: a made-up pair format is an error naming the first field it lacks.
  const auto guessed = net_pairs_of(json{{"pairs", json::array({json{{"src", 0}, {"dst", 1}, {"bw_GBps", 1.0}}})}});
  EXPECT_TRUE(guessed.pairs.empty());
  EXPECT_EQ(guessed.error, "net.schema is missing");
  EXPECT_EQ(net_pairs_of(json{{"skipped", true}, {"reason", "--probe none"}}).skipped_reason, "--probe none");
}

// Two hosts of the one-box cluster (issue 44): no RDMA NIC, veths shaped to 25 Gb/s (eth0) and
// 5 Gb/s (eth1): a run across them is bounded by the fastest shaped link, 3.125 GB/s.
TEST(ReportInputs, AShapedIpLinkBoundsARunAcrossHosts) {
  json topology = {{"schema", "cctune.topology/1"}, {"nodes", json::array()}};
  for (const char* host : {"node0", "node1"})
    topology["nodes"].push_back(
        {{"hostname", host},
         {"net_interfaces",
          json::array({{{"name", "lo"}, {"operstate", "unknown"}, {"is_virtual", true}},
                       {{"name", "eth0"}, {"operstate", "up"}, {"speed_Gbps", 10}, {"shaped_Gbps", 25}, {"is_virtual", true}},
                       {{"name", "eth1"}, {"operstate", "up"}, {"speed_Gbps", 10}, {"shaped_Gbps", 5}, {"is_virtual", true}}})}});
  Results r;
  r.topology = ResultSection(topology);
  RunResult run;
  run.backend = "nccl";
  run.nnodes = 2;
  const auto limit = physical_limit(r, run);
  ASSERT_TRUE(limit);
  EXPECT_EQ(limit->what, "shaped IP link");
  EXPECT_DOUBLE_EQ(limit->GBps, 25.0 / 8);
  run.nnodes = 1;  // one host: its GPUs' own links (none in this topology), not the network
  EXPECT_FALSE(physical_limit(r, run));
}

TEST(ReportInputs, PhysicalLimitPicksTheLinkOfTheRun) {
  const auto files = load_fixtures({"nccl_tuned.json"});
  const auto& r = files[0].results;
  EXPECT_DOUBLE_EQ(physical_limit(r, r.runs[0])->GBps, 450.0);  // the derived block's, as written
  EXPECT_EQ(physical_limit(r, r.runs[1])->what, "GPU PCIe");
  EXPECT_DOUBLE_EQ(physical_limit(r, r.runs[1])->GBps, 52.5);
  RunResult net = r.runs[0];
  net.env = {{"NCCL_P2P_DISABLE", "1"}, {"NCCL_SHM_DISABLE", "1"}};
  EXPECT_EQ(physical_limit(r, net)->what, "NIC port");
  EXPECT_DOUBLE_EQ(physical_limit(r, net)->GBps, 50.0);
  RunResult mpi = r.runs[0];
  mpi.backend = "mpi";
  EXPECT_FALSE(physical_limit(r, mpi));
  // No topology, or one that is not cctune.topology/1: the run is drawn without a limit.
  Results other = r;
  other.topology = ResultSection(json("not an object"));
  EXPECT_FALSE(physical_limit(other, r.runs[0]));
  other.topology = ResultSection();
  EXPECT_FALSE(physical_limit(other, r.runs[0]));
  // Without a derived block the NIC limit comes from the raw ports (400 Gb/s ACTIVE).
  json raw = r.topology.json();
  raw["nodes"][0].erase("derived");
  other.topology = ResultSection(raw);
  EXPECT_DOUBLE_EQ(physical_limit(other, net)->GBps, 50.0);
  EXPECT_FALSE(physical_limit(other, r.runs[0]));  // NVLink and PCIe limits are the writer's to derive
}

TEST(ReportInputs, GenericJsonRendering) {
  const std::string h = json_to_html(json{{"list", {1, 2, 3}}, {"rows", json::array({json{{"a", 1}}, json{{"b", "x"}}})}, {"none", nullptr}});
  EXPECT_NE(h.find("1, 2, 3"), std::string::npos);
  EXPECT_NE(h.find("<th>a</th><th>b</th>"), std::string::npos);
  json deep = 1;
  for (int i = 0; i < 20; ++i) deep = json{{"k", deep}};
  EXPECT_LT(json_to_html(deep).size(), 2000u);  // depth-limited
}
