// What --prometheus writes for sweep, diagnose and workload: the families and labels from real
// documents (a recorded NCCL sweep, a synthetic diagnosis, a workload), hostile names escaped,
// and every file accepted by promtool (tests/support/promtool_check.sh; skipped as it says).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "app/metrics/metrics.hpp"
#include "core/files.hpp"
#include "core/results_json.hpp"

namespace cctune::app::metrics {
namespace {

namespace wl = cctune::workload;

// Hostile text: quotes, backslashes, a newline that would start a series, invalid UTF-8, a CR.
const std::string kHostile = "n\"1\\\n# TYPE evil gauge\nevil 1\r\xff\xfe";

std::filesystem::path out_dir() {
  const auto dir = std::filesystem::path(CCTUNE_BINARY_DIR) / "tests" / "metrics_unit";
  std::filesystem::create_directories(dir);
  return dir;
}

// Writes the file as the commands do and runs promtool on it.
void expect_promtool_accepts(const prometheus::Exposition& e, const std::string& name) {
  const std::string path = (out_dir() / name).string();
  std::filesystem::remove(path);
  write_metrics(path, e);
  const std::string cmd = std::string(CCTUNE_SOURCE_DIR) + "/tests/support/promtool_check.sh " + path;
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 77) GTEST_SKIP() << "promtool not installed";
  EXPECT_EQ(WEXITSTATUS(status), 0) << path;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(SweepMetrics, EveryOkPointOfARecordedNcclSweep) {
  const Results r = load_results(std::string(CCTUNE_SOURCE_DIR) + "/tests/fixtures/results/nccl_tuned.json");
  std::size_t ok = 0;
  for (const auto& run : r.runs)
    for (const auto& p : run.points) ok += p.status == PointStatus::Ok;
  ASSERT_GT(ok, 0u);
  const prometheus::Exposition e = sweep_metrics(r);
  const std::string t = e.text();
  EXPECT_EQ(count(t, "\ncctune_busbw_bytes_per_second{"), ok);
  EXPECT_EQ(count(t, "\ncctune_collective_time_seconds{"), ok);
  EXPECT_NE(t.find("algo=\""), std::string::npos);
  EXPECT_NE(t.find("bytes=\""), std::string::npos);
  expect_promtool_accepts(e, "sweep.prom");
}

TEST(SweepMetrics, BusbwInBytesPerSecondAndHostileGroupEscaped) {
  Results r;
  RunResult run;
  run.backend = "mpi";
  run.group = kHostile;
  run.nranks = 2;
  PointResult p;
  p.size_bytes = 1048576;
  p.busbw_GBps = 12.5;
  p.batch_us = 84;
  run.points.push_back(p);
  r.runs.push_back(run);
  const prometheus::Exposition e = sweep_metrics(r);
  const std::string t = e.text();
  EXPECT_NE(t.find("group=\"n\\\"1\\\\\\n# TYPE evil gauge\\nevil 1\r\xEF\xBF\xBD\xEF\xBF\xBD\""), std::string::npos) << t;
  EXPECT_NE(t.find("} 12500000000\n"), std::string::npos) << t;
  EXPECT_NE(t.find("} 8.4e-05\n"), std::string::npos) << t;
  EXPECT_EQ(t.find("\nevil 1"), std::string::npos);
  expect_promtool_accepts(e, "sweep_hostile.prom");
}

TEST(DiagnoseMetrics, SuspectsFiguresAndPairs) {
  diagnose::DiagnosisDoc d;
  d.hosts = {kHostile, "n2"};
  d.nodes.push_back({kHostile, 1, 20.0, 12.0, 0});
  d.nodes.push_back({"n2", 1, 21.0, 11.0, 0});
  diagnose::PairResult pr;
  pr.host_a = kHostile;
  pr.host_b = "n2";
  pr.busbw_gbps = 3.0;
  pr.probe_gbps = 5.0;
  d.pairs_measured.push_back(pr);
  cctune::diagnose::Suspect s;
  s.kind = cctune::diagnose::SuspectKind::Nic;
  s.host = kHostile;
  s.figure = 3.0;
  s.median = 12.0;
  s.unit = "GB/s";
  d.diagnosis.suspects.push_back(s);
  const prometheus::Exposition e = diagnose_metrics(d);
  const std::string t = e.text();
  EXPECT_NE(t.find("cctune_diagnose_suspects 1\n"), std::string::npos) << t;
  EXPECT_NE(t.find("kind=\"nic\""), std::string::npos);
  EXPECT_NE(t.find("stat=\"observed\"} 3000000000\n"), std::string::npos) << t;
  EXPECT_NE(t.find("stat=\"median\"} 12000000000\n"), std::string::npos) << t;
  EXPECT_EQ(t.find("stat=\"limit\""), std::string::npos);  // unknown: left out
  EXPECT_NE(t.find("cctune_diagnose_pair_busbw_bytes_per_second{host_a="), std::string::npos);
  EXPECT_NE(t.find("cctune_diagnose_node_latency_seconds{host=\"n2\"} 1.1e-05\n"), std::string::npos) << t;
  expect_promtool_accepts(e, "diagnose.prom");
}

TEST(WorkloadMetrics, CallsPerStepTimeAndShare) {
  wl::Workload w;
  w.format = "flight-recorder";
  w.steps = 4;
  wl::Communicator c;
  c.id = kHostile;
  c.nranks = 2;
  wl::CallStats ar;
  ar.shape.collective = Collective::AllReduce;
  ar.shape.op = ReduceOp::Sum;
  ar.shape.count = 1024;
  ar.shape.bytes = 4096;
  ar.calls = 8;
  ar.durations.add(100);
  ar.durations.add(300);  // mean 200 us, 8 calls: 1.6 ms over the capture, 0.4 ms per step
  wl::CallStats bc;
  bc.shape.collective = Collective::Broadcast;
  bc.shape.root = 0;
  bc.shape.count = 10;
  bc.shape.bytes = 40;
  bc.calls = 4;
  bc.durations.add(100);  // 0.4 ms over the capture
  c.calls = {ar, bc};
  w.communicators.push_back(c);
  const prometheus::Exposition e = workload_metrics(w);
  const std::string t = e.text();
  EXPECT_NE(t.find("cctune_workload_steps 4\n"), std::string::npos);
  EXPECT_NE(t.find("collective=\"allreduce\",dtype=\"float32\",op=\"sum\",count=\"1024\",bytes=\"4096\"} 2\n"), std::string::npos) << t;
  EXPECT_NE(t.find("collective=\"allreduce\",clock=\"host\"} 0.0004\n"), std::string::npos) << t;
  EXPECT_NE(t.find("collective=\"allreduce\",clock=\"host\"} 0.8\n"), std::string::npos) << t;
  EXPECT_NE(t.find("collective=\"broadcast\",clock=\"host\"} 0.2\n"), std::string::npos) << t;
  expect_promtool_accepts(e, "workload.prom");
}

}  // namespace
}  // namespace cctune::app::metrics
