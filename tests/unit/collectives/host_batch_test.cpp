// The MPI backend's batch loop (collectives/mpi/host_batch.hpp) with plain callables: what
// runs inside a wall batch, and how a stop request ends a batch early.
#include <gtest/gtest.h>

#include <string>

#include "collectives/mpi/host_batch.hpp"

using namespace cctune;

namespace {
struct Trace {
  std::string steps;  // o: operation, c: clock read, s: stop check
  double now = 0;
  int stop_after_checks = -1;  // the check with this number (1-based) says stop
  int checks = 0;
  BatchTiming run(const BatchRequest& b) {
    return mpi_detail::time_host_batch(
        b, [&] { steps += 'o'; now += 1.0; },
        [&] {
          steps += 's';
          return ++checks == stop_after_checks;
        },
        [&] {
          steps += 'c';
          return now;
        });
  }
};
const std::function<bool()> kNeverStop = [] { return false; };
}  // namespace

TEST(HostBatch, AWallBatchIsTwoClockReadsAroundPlainOperations) {
  Trace t;
  const BatchTiming r = t.run(BatchRequest{5, BatchKind::Wall});
  EXPECT_EQ(t.steps, "coooooc");
  EXPECT_DOUBLE_EQ(r.wall_us, 5.0);
  EXPECT_EQ(r.ran, 5);
  EXPECT_TRUE(r.iter_us.empty());
  EXPECT_FALSE(r.interrupted);
}

TEST(HostBatch, APerOpBatchTimesEachOperation) {
  Trace t;
  const BatchTiming r = t.run(BatchRequest{3, BatchKind::PerOp});
  EXPECT_EQ(t.steps, "ccoccoccocc");
  ASSERT_EQ(r.iter_us.size(), 3u);
  for (double x : r.iter_us) EXPECT_DOUBLE_EQ(x, 1.0);
}

TEST(HostBatch, StopChecksComeEveryCheckEveryOperationsOnly) {
  Trace t;
  BatchRequest b{10, BatchKind::Wall, 4, &kNeverStop};
  const BatchTiming r = t.run(b);
  // After operations 4 and 8; never after the last one.
  EXPECT_EQ(t.steps, "coooosoooosooc");
  EXPECT_EQ(r.ran, 10);
  EXPECT_FALSE(r.interrupted);
}

TEST(HostBatch, AStopRequestEndsTheBatchEarly) {
  Trace t;
  t.stop_after_checks = 2;
  BatchRequest b{1000000, BatchKind::PerOp, 100, &kNeverStop};
  const BatchTiming r = t.run(b);
  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(r.ran, 200);
  EXPECT_EQ(r.iter_us.size(), 200u);
  EXPECT_DOUBLE_EQ(r.wall_us, 200.0);
}

TEST(HostBatch, NoStopCallbackMeansNoChecks) {
  Trace t;
  BatchRequest b{10, BatchKind::Wall, 2, nullptr};
  t.run(b);
  EXPECT_EQ(t.steps.find('s'), std::string::npos);
}
