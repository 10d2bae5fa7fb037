#include <gtest/gtest.h>

#include "collectives/engine.hpp"
#include "support/thread_comm.hpp"

using namespace cctune;

namespace {

// A backend whose operation times are scripted per rank, so the aggregation rules can be
// checked exactly: per-iteration max over ranks, batch time averaged over ranks.
class ScriptedBackend : public CollectiveBackend {
 public:
  ScriptedBackend(int rank, double iter_us, std::string unsupported = {})
      : rank_(rank), iter_us_(iter_us), unsupported_(std::move(unsupported)) {}
  std::string name() const override { return "scripted"; }
  std::string unsupported_reason(const PointSpec&) const override { return unsupported_; }
  void prepare(const PointSpec&) override { ++prepared; }
  BatchTiming run_batch(int n) override {
    ++batches;
    BatchTiming t;
    t.iter_us.assign(n, iter_us_);
    if (n > 1 && stall_us > 0) {
      t.iter_us[0] += stall_us;
      stall_us = 0;
    }
    t.wall_us = 0;
    for (double x : t.iter_us) t.wall_us += x;
    return t;
  }
  long count_wrong() override { return rank_; }
  // Batches of more than one operation (the untimed settle op has one): the first gets one
  // operation stalled by `stall_us`.
  double stall_us = 0;
  int prepared = 0;
  int batches = 0;

 private:
  int rank_;
  double iter_us_;
  std::string unsupported_;
};

PointSpec spec(int nranks) {
  PointSpec s;
  s.collective = Collective::AllReduce;
  s.bytes = collective_bytes(Collective::AllReduce, 1 << 20, DType::Float32, nranks);
  return s;
}

}  // namespace

TEST(Engine, AggregatesLikeNcclTestsAndAgreesOnStopping) {
  std::vector<PointResult> results(4);
  cctune::testing::run_ranks(4, [&](RankComm& comm) {
    ScriptedBackend backend(comm.rank(), 10.0 * (comm.rank() + 1));  // 10, 20, 30, 40 us
    MeasureSettings settings;
    settings.check = true;
    settings.stop.min_iterations = 20;
    results[comm.rank()] = measure_point(backend, comm, spec(4), settings);
  });
  for (const auto& r : results) {
    EXPECT_EQ(r.status, PointStatus::Ok);
    EXPECT_DOUBLE_EQ(r.batch_us, 25.0);       // mean of 10, 20, 30, 40
    EXPECT_DOUBLE_EQ(r.iter_us.median, 40.0);  // slowest rank per iteration
    EXPECT_EQ(r.wrong, 0 + 1 + 2 + 3);
    EXPECT_EQ(r.stop_reason, "noise");
    EXPECT_EQ(r.iterations, results[0].iterations);
    // busbw from batch_us with the allreduce factor 2(n-1)/n.
    const double algbw = (1 << 20) / 1e9 / 25e-6;
    EXPECT_NEAR(r.algbw_GBps, algbw, 1e-9);
    EXPECT_NEAR(r.busbw_GBps, algbw * 1.5, 1e-9);
  }
}

TEST(Engine, UnsupportedOnOneRankSkipsEverywhere) {
  std::vector<PointResult> results(3);
  cctune::testing::run_ranks(3, [&](RankComm& comm) {
    ScriptedBackend backend(comm.rank(), 5.0, comm.rank() == 2 ? "no such algo here" : "");
    results[comm.rank()] = measure_point(backend, comm, spec(3), MeasureSettings{});
    EXPECT_EQ(backend.prepared, 0);
  });
  EXPECT_EQ(results[2].reason, "no such algo here");
  for (const auto& r : results) EXPECT_EQ(r.status, PointStatus::Skipped);
}

TEST(Engine, OneStalledBatchDoesNotSetTheBatchTime) {
  std::vector<PointResult> results(2);
  cctune::testing::run_ranks(2, [&](RankComm& comm) {
    ScriptedBackend backend(comm.rank(), 10.0);
    backend.stall_us = 2000.0;  // a 2 ms gap in the first timed batch, as seen on H200
    MeasureSettings settings;
    settings.warmup_iters = 0;  // so the stall lands in a timed batch
    results[comm.rank()] = measure_point(backend, comm, spec(2), settings);
  });
  for (const auto& r : results) {
    EXPECT_DOUBLE_EQ(r.batch_us, 10.0);
    EXPECT_GE(r.iterations, 3 * 20);
    EXPECT_DOUBLE_EQ(r.iter_us.max, 2010.0);
  }
}
