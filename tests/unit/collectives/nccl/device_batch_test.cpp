// The NCCL backend's batch timing (collectives/nccl/device_batch.hpp) with recording steps in
// place of CUDA: a wall batch holds nothing but the launches between its clock reads, as in
// nccl-tests; event records only appear in per-operation batches.
#include <gtest/gtest.h>

#include <string>

#include "collectives/nccl/device_batch.hpp"

using namespace cctune;

namespace {
struct RecordingSteps {
  std::string trace;  // S sync, C clock, L launch, R event record
  double now = 0;
  int events = 0;
  void sync() { trace += 'S'; }
  double clock_us() {
    trace += 'C';
    return now;
  }
  void launch() {
    trace += 'L';
    now += 3.0;
  }
  void ensure_events(int count) { events = count; }
  void record(int) { trace += 'R'; }
  double elapsed_us(int, int) { return 8.0; }
};
}  // namespace

TEST(DeviceBatch, AWallBatchIsLaunchesAndOneSyncBetweenTwoClockReads) {
  RecordingSteps s;
  const BatchTiming t = nccl_detail::time_device_batch(s, BatchKind::Wall, 4, 1);
  EXPECT_EQ(s.trace, "SCLLLLSC");
  EXPECT_DOUBLE_EQ(t.wall_us, 12.0);
  EXPECT_EQ(t.ran, 4);
  EXPECT_TRUE(t.iter_us.empty());
  EXPECT_EQ(s.events, 0);
}

TEST(DeviceBatch, APerOpBatchRecordsAnEventAroundEveryLaunch) {
  RecordingSteps s;
  const BatchTiming t = nccl_detail::time_device_batch(s, BatchKind::PerOp, 3, 1);
  EXPECT_EQ(s.trace, "SCRLRLRLRSC");
  ASSERT_EQ(t.iter_us.size(), 3u);
  EXPECT_DOUBLE_EQ(t.iter_us[0], 8.0);
  EXPECT_EQ(s.events, 4);
}

TEST(DeviceBatch, GraphReplaysCountTheirOperations) {
  RecordingSteps s;  // 20 operations as 5 replays of 4
  const BatchTiming wall = nccl_detail::time_device_batch(s, BatchKind::Wall, 5, 4);
  EXPECT_EQ(s.trace, "SCLLLLLSC");
  EXPECT_EQ(wall.ran, 20);
  s.trace.clear();
  const BatchTiming per_op = nccl_detail::time_device_batch(s, BatchKind::PerOp, 5, 4);
  ASSERT_EQ(per_op.iter_us.size(), 5u);
  EXPECT_DOUBLE_EQ(per_op.iter_us[0], 2.0);  // 8 us per replay of 4
}
