// Issue 46, "undecided is an answer": what tune says where the noise of a sweep allows no
// decision, on results recorded on a one-box cluster of 2 hosts x 1 H200 (tests/fixtures/tuning/device/).
#include "tuner/selection/undecided.hpp"

#include <gtest/gtest.h>

#include "core/results_json.hpp"
#include "tuner/export/outputs.hpp"
#include "tuner/selection/selection.hpp"

namespace cctune::tuner {
namespace {

Results fixture(const std::string& name) { return load_results(std::string(CCTUNE_SOURCE_DIR) + "/tests/fixtures/tuning/device/" + name); }

// The DDP job's one all-reduce shape (3 equal buckets of 67 MB), 2 ranks on 2 hosts, with the
// step the capture timed (its meta.settings.workload, as `cctune tune` reads it).
TuneOptions ddp_over_two_hosts() {
  TuneOptions o;
  o.job_weights = {{Collective::AllReduce, DType::Float32, 67125248, 2, 2, 1.0}};
  o.job_step_us = 9476.0;
  return o;
}

// At 25 Gb/s with --max-time 0.1 (3 to 8 iterations a point) the socket groups read ~1.3x with
// intervals reaching ~0.65: NCCL's defaults kept, the contenders named best first, and the remedy.
TEST(Undecided, NoisySweepNamesTheContendersAndTheRemedy) {
  const TuneOutputs out = tune_results(fixture("onebox_25g_ddp_2xh200.results.json"), ddp_over_two_hosts());
  EXPECT_EQ(out.group, "default");
  ASSERT_GE(out.undecided.contenders.size(), 3u);
  const UndecidedGroup& best = out.undecided.contenders.front();
  EXPECT_EQ(best.group, "sockets-8x8");
  EXPECT_GT(best.speedup, 1.2);
  EXPECT_LT(best.low, 1.0);
  for (const UndecidedGroup& c : out.undecided.contenders) EXPECT_LE(c.speedup, best.speedup) << c.group;
  EXPECT_TRUE(out.undecided.time_capped);
  EXPECT_GT(out.undecided.fewest_iterations, 0);
  EXPECT_LE(out.undecided.fewest_iterations, 8);
  const std::string summary = format_tune_summary(out, false);
  EXPECT_NE(summary.find("# undecided: "), std::string::npos) << summary;
  EXPECT_NE(summary.find("sockets-8x8 x1.31"), std::string::npos) << summary;
  EXPECT_NE(summary.find("with a larger --budget-s (the race) or --max-time"), std::string::npos) << summary;
  EXPECT_NE(summary.find("cctune tune RESULTS --job"), std::string::npos) << summary;
}

// Two NICs a host, eth0 shaped to 5 Gb/s and eth1 to 25 Gb/s, NCCL left to choose: the fastest-NIC
// group wins beyond noise (x2.5) and is deployed naming eth1; nothing is left undecided.
TEST(Undecided, ADecidedSweepHasNoRace) {
  const TuneOutputs out = tune_results(fixture("onebox_2nic_ddp_2xh200.results.json"), ddp_over_two_hosts());
  EXPECT_EQ(out.group, "socket-ifname-fastest");
  ASSERT_EQ(out.profile.env.count("NCCL_SOCKET_IFNAME"), 1u);
  EXPECT_EQ(out.profile.env.at("NCCL_SOCKET_IFNAME"), "=eth1");
  EXPECT_TRUE(out.undecided.contenders.empty());
  EXPECT_EQ(format_tune_summary(out, false).find("# undecided:"), std::string::npos);
}

}  // namespace
}  // namespace cctune::tuner
