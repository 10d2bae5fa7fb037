// Forced and observe modes, on a SweepControl of the test's own and on NCCL's cost table shape.
#include <gtest/gtest.h>

#include "fake_cost_table.hpp"
#include "tuner/plugin/cost_table.hpp"
#include "tuner/plugin/sweep_control.hpp"

namespace cctune::tuner {
namespace {

using testing::FakeCostTable;
constexpr int kAllReduce = 4;
constexpr int kAllGather = 2;

bool call(SweepControl& c, FakeCostTable& t, int* channels, int func = kAllReduce, std::uint64_t bytes = 1 << 20) {
  return c.on_get_coll_info(func, bytes, &t.cells[0][0], testing::kAlgos, testing::kProtos, channels);
}

TEST(CostTable, CheapestIsNcclsArgminAmongSupportedEntries) {
  FakeCostTable t;
  CostTable table(&t.cells[0][0], 7, 3);
  auto best = table.cheapest();
  ASSERT_TRUE(best);
  EXPECT_EQ(best->algorithm, 1);  // ring
  EXPECT_EQ(best->protocol, 0);   // ll
  EXPECT_TRUE(table.supported(0, 2));
  EXPECT_FALSE(table.supported(4, 2));  // nvls: -1
  EXPECT_FALSE(table.supported(7, 0));  // outside
  for (auto& row : t.cells)
    for (float& c : row) c = -1.0f;
  EXPECT_FALSE(table.cheapest());
}

TEST(CostTable, TiesGoToTheFirstEntryAsInNccl) {
  FakeCostTable t;
  t.cells[0][1] = 8.25f;  // tree/ll128 equals ring/ll; tree comes first
  auto best = CostTable(&t.cells[0][0], 7, 3).cheapest();
  EXPECT_EQ(best->algorithm, 0);
  EXPECT_EQ(best->protocol, 1);
}

TEST(SweepControl, OffLeavesTheCallToTheProfile) {
  SweepControl c;
  FakeCostTable t;
  const FakeCostTable before;
  int channels = 0;
  EXPECT_FALSE(call(c, t, &channels));
  EXPECT_TRUE(t.equals(before));
  EXPECT_EQ(channels, 0);
  EXPECT_FALSE(c.last_observation());
}

TEST(SweepControl, ForcedSupportedChoiceIsAppliedOnEveryCall) {
  SweepControl c;
  c.set_forced({Algorithm::Tree, Protocol::Simple, 32});
  for (int i = 0; i < 3; ++i) {
    FakeCostTable t;
    int channels = 0;
    EXPECT_TRUE(call(c, t, &channels));
    EXPECT_EQ(t.at(0, 2), 0.0f);  // tree/simple now the cheapest
    EXPECT_EQ(t.at(1, 0), 8.25f);  // the rest untouched
    EXPECT_EQ(channels, 32);
    EXPECT_EQ(CostTable(&t.cells[0][0], 7, 3).cheapest()->algorithm, 0);
  }
  const ForcedReport r = c.forced_report();
  EXPECT_EQ(r.calls, 3u);
  EXPECT_EQ(r.applied, 3u);
  EXPECT_EQ(r.rejected, 0u);
  EXPECT_TRUE(r.applicable());
  // NCCL's own pick is kept for comparison.
  ASSERT_TRUE(c.last_observation());
  EXPECT_EQ(c.last_observation()->algorithm, Algorithm::Ring);
  EXPECT_EQ(c.last_observation()->protocol, Protocol::LL);
}

TEST(SweepControl, ForcedWithZeroChannelsLeavesTheChannelCountToNccl) {
  SweepControl c;
  c.set_forced({Algorithm::Ring, Protocol::LL128, 0});
  FakeCostTable t;
  int channels = 0;
  call(c, t, &channels);
  EXPECT_EQ(t.at(1, 1), 0.0f);
  EXPECT_EQ(channels, 0);
}

TEST(SweepControl, ForcedUnsupportedChoiceIsRejectedWithAReasonAndNcclChooses) {
  SweepControl c;
  c.set_forced({Algorithm::Nvls, Protocol::Simple, 16});
  FakeCostTable t;
  const FakeCostTable before;
  int channels = 0;
  EXPECT_TRUE(call(c, t, &channels, kAllGather, 8 << 20));
  EXPECT_TRUE(t.equals(before));
  EXPECT_EQ(channels, 0);
  const ForcedReport r = c.forced_report();
  EXPECT_FALSE(r.applicable());
  EXPECT_EQ(r.rejected, 1u);
  EXPECT_NE(r.reason.find("nvls/simple"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("allgather of 8388608 bytes"), std::string::npos) << r.reason;
}

TEST(SweepControl, ChoiceOutsideAnOlderNcclsTableIsRejected) {
  SweepControl c;
  c.set_forced({Algorithm::Pat, Protocol::Simple, 0});
  FakeCostTable t;
  int channels = 0;
  // An NCCL with six algorithms (before PAT) passes a 6x3 table.
  EXPECT_TRUE(c.on_get_coll_info(kAllReduce, 1024, &t.cells[0][0], 6, 3, &channels));
  EXPECT_FALSE(c.forced_report().applicable());
  EXPECT_NE(c.forced_report().reason.find("outside"), std::string::npos);
}

TEST(SweepControl, NoCallsMeansNotApplicable) {
  SweepControl c;
  c.set_forced({Algorithm::Ring, Protocol::Simple, 0});
  EXPECT_FALSE(c.forced_report().applicable());
  EXPECT_EQ(c.forced_report().calls, 0u);
}

TEST(SweepControl, ObserveRecordsNcclsPickAndChangesNothing) {
  SweepControl c;
  c.set_observe();
  FakeCostTable t;
  const FakeCostTable before;
  int channels = 0;
  EXPECT_TRUE(call(c, t, &channels, kAllReduce, 4096));
  EXPECT_TRUE(t.equals(before));
  EXPECT_EQ(channels, 0);
  auto o = c.last_observation();
  ASSERT_TRUE(o);
  EXPECT_EQ(o->algorithm, Algorithm::Ring);
  EXPECT_EQ(o->protocol, Protocol::LL);
  EXPECT_EQ(o->collective, Collective::AllReduce);
  EXPECT_EQ(o->n_bytes, 4096u);
  EXPECT_EQ(o->calls, 1u);
  EXPECT_TRUE(o->consistent);

  // A second call where NCCL's model prefers tree/simple: recorded, marked inconsistent.
  FakeCostTable t2;
  t2.cells[0][2] = 1.0f;
  call(c, t2, &channels, kAllReduce, 4096);
  o = c.last_observation();
  EXPECT_EQ(o->algorithm, Algorithm::Tree);
  EXPECT_EQ(o->protocol, Protocol::Simple);
  EXPECT_EQ(o->calls, 2u);
  EXPECT_FALSE(o->consistent);
}

TEST(SweepControl, EachModeChangeStartsAFreshPoint) {
  SweepControl c;
  c.set_forced({Algorithm::Nvls, Protocol::Simple, 0});
  FakeCostTable t;
  int channels = 0;
  call(c, t, &channels);
  EXPECT_EQ(c.forced_report().rejected, 1u);
  c.set_observe();
  EXPECT_EQ(c.forced_report().calls, 0u);
  EXPECT_FALSE(c.last_observation());
  c.set_off();
  EXPECT_EQ(c.mode(), SweepMode::Off);
  EXPECT_FALSE(call(c, t, &channels));
}

}  // namespace
}  // namespace cctune::tuner
