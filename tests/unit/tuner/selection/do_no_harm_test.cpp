// Issue 43, "do no harm": which process-level groups tune deploys on collective time alone, on
// results recorded on 2 x H200 (tests/fixtures/tuning/device/) and the 8 x H200 fixture.
#include "tuner/selection/do_no_harm.hpp"

#include <gtest/gtest.h>

#include "core/results_json.hpp"
#include "tuner/export/outputs.hpp"
#include "tuner/selection/selection.hpp"
#include "tuner/selection/timing.hpp"

namespace cctune::tuner {
namespace {

Results fixture(const std::string& name) { return load_results(std::string(CCTUNE_SOURCE_DIR) + "/tests/fixtures/tuning/" + name); }

TEST(DoNoHarm, SettingsThatTakeSms) {
  for (const char* key : {"NCCL_MIN_CTAS", "NCCL_MAX_CTAS", "NCCL_MIN_NCHANNELS", "NCCL_MAX_NCHANNELS", "NCCL_MIN_P2P_NCHANNELS",
                          "NCCL_MAX_P2P_NCHANNELS", "NCCL_NTHREADS"})
    EXPECT_TRUE(takes_sms({{key, "32"}})) << key;
  for (const char* key : {"NCCL_SOCKET_NTHREADS", "NCCL_NSOCKS_PERTHREAD", "NCCL_BUFFSIZE", "NCCL_P2P_LEVEL", "NCCL_IB_QPS_PER_CONNECTION"})
    EXPECT_FALSE(takes_sms({{key, "4"}})) << key;
}

// On NVLink the sweep measured channels-32 (NCCL_MIN_CTAS=NCCL_MAX_CTAS=32) faster in a DDP job's
// collective time; on the job it read 0.917 "slower" over 4 pairs. Without the job it is never
// deployed, grid or workload, and tune says what would show it.
TEST(DoNoHarm, AGroupThatTakesSmsIsWithheldAndNamed) {
  const TuneOutputs grid = tune_results(fixture("h200x8_allreduce.results.json"), TuneOptions{});
  ASSERT_TRUE(grid.withheld);
  EXPECT_EQ(grid.withheld->group, "channels-32");
  EXPECT_GT(grid.withheld->low, 1.0);
  EXPECT_NE(grid.group, "channels-32");
  EXPECT_TRUE(grid.profile.env.empty());
  EXPECT_FALSE(grid.profile.rules.empty());  // the reference group's rules still apply
  const std::string summary = format_tune_summary(grid, false);
  EXPECT_NE(summary.find("# not deployed: group channels-32"), std::string::npos) << summary;
  EXPECT_NE(summary.find("cctune tune RESULTS --job"), std::string::npos) << summary;

  TuneOptions workload;
  workload.job_weights = {{Collective::AllReduce, DType::Float32, 67125248, 2, 1, 1.0}};
  workload.job_step_us = 3005.0;
  const TuneOutputs job = tune_results(fixture("device/nvlink_ddp_2xh200.results.json"), workload);
  EXPECT_TRUE(job.profile.env.count("NCCL_MIN_CTAS") == 0);
  // tune --job races it all the same: its candidates force a group, and a forced group is deployed.
  TuneOptions forced;
  forced.force_group = "channels-32";
  const TuneOutputs raced = tune_results(fixture("h200x8_allreduce.results.json"), forced);
  EXPECT_EQ(raced.group, "channels-32");
  EXPECT_FALSE(raced.withheld);
  EXPECT_EQ(raced.profile.env.at("NCCL_MIN_CTAS"), "32");
}

// Over sockets, sockets-2x2 takes no SMs: with the job's step time it is deployed (the job
// measured 2.83x), and without one it is withheld: nothing says how much of it the step shows.
TEST(DoNoHarm, WithoutTheStepTimeNoGroupIsDeployedForAWorkload) {
  const Results socket = fixture("device/socket_ddp_2xh200.results.json");
  TuneOptions options;
  options.job_weights = {{Collective::AllReduce, DType::Float32, 67125248, 2, 2, 1.0}};
  options.job_step_us = 34316.0;
  const TuneOutputs timed = tune_results(socket, options);
  EXPECT_FALSE(timed.withheld);
  EXPECT_NE(timed.group, "default");
  EXPECT_FALSE(timed.profile.env.empty());
  options.job_step_us = 0;
  const TuneOutputs untimed = tune_results(socket, options);
  ASSERT_TRUE(untimed.withheld);
  EXPECT_EQ(untimed.withheld->group, timed.group);
  EXPECT_NE(untimed.withheld->why.find("no step time"), std::string::npos) << untimed.withheld->why;
  EXPECT_EQ(untimed.group, "default");
  EXPECT_TRUE(untimed.profile.env.empty());
  // A grid asks for the collectives alone: a group that takes no SMs is deployed there.
  EXPECT_FALSE(tune_results(socket, TuneOptions{}).withheld);
}

// Every ok point as if swept with --overlap: the GEMMs beside it lost `share(group)` of the
// collective's time (compute_us = share x batch_us).
// `spread`: the compute figure's half-width over rounds, as a share of batch_us.
template <class Share>
Results with_overlap(Results r, Share share, double spread = 0) {
  for (RunResult& run : r.runs)
    for (PointResult& p : run.points)
      if (p.status == PointStatus::Ok) {
        const double f = share(run.group);
        p.overlap = PointOverlap{4, 1 / (1 - f), f * p.batch_us, spread * p.batch_us};
      }
  return r;
}

TEST(DoNoHarm, AnOverlapPointCostsTheJobItsCollectiveAndTheCompute) {
  PointResult p;
  p.status = PointStatus::Ok;
  p.batch_us = 100;
  p.iter_us.median = 90;
  p.iter_us.count = 20;
  p.rel_noise = 0.01;
  EXPECT_DOUBLE_EQ(timing_of(p).time_us, 90);
  EXPECT_FALSE(timing_of(p).overlap);
  p.overlap = PointOverlap{4, 1.25, 20};
  const Timing t = timing_of(p);
  EXPECT_TRUE(t.overlap);
  EXPECT_DOUBLE_EQ(t.time_us, 110);  // what one call costs the job: collective + compute
  EXPECT_DOUBLE_EQ(t.collective_us(), 90);
  EXPECT_DOUBLE_EQ(t.halfwidth_us, 0.9);  // the collective's noise
  p.overlap->compute_halfwidth_us = 6;    // and the compute's, round to round
  EXPECT_DOUBLE_EQ(timing_of(p).halfwidth_us, 6.9);
  EXPECT_DOUBLE_EQ(timing_of(p).time_us, 110);
}

// The GEMMs' figures move from round to round (4 x H200, FSDP2: one config read 20 and 77 us of
// compute a call in two rounds). A group whose gain on the sum lies within that spread is not
// deployed, though the collective's own interval alone would have let it through.
TEST(DoNoHarm, AGainWithinTheComputesSpreadIsNotDeployed) {
  const Results grid = fixture("h200x8_allreduce.results.json");
  const auto none = [](const std::string&) { return 0.0; };
  ASSERT_EQ(tune_results(with_overlap(grid, none, 0.001), TuneOptions{}).group, "channels-32");
  const TuneOutputs noisy = tune_results(with_overlap(grid, none, 0.2), TuneOptions{});
  EXPECT_NE(noisy.group, "channels-32");
  EXPECT_FALSE(noisy.profile.env.count("NCCL_MIN_CTAS"));
}

// Measured beside compute, channels-32 is judged by collective + compute: where the SMs it takes
// cost the GEMMs nothing it is deployed (the rule that withholds it on collective time alone
// gives way), and where they cost more than it saves it is not, and tune says why.
TEST(DoNoHarm, MeasuredBesideComputeAGroupThatTakesSmsIsJudgedByTheSum) {
  const Results grid = fixture("h200x8_allreduce.results.json");
  const TuneOutputs free_sms = tune_results(with_overlap(grid, [](const std::string&) { return 0.0; }), TuneOptions{});
  EXPECT_FALSE(free_sms.withheld);
  EXPECT_EQ(free_sms.group, "channels-32");
  EXPECT_EQ(free_sms.profile.env.at("NCCL_MIN_CTAS"), "32");
  std::string summary = format_tune_summary(free_sms, false);
  EXPECT_NE(summary.find("measured beside compute (--overlap)"), std::string::npos) << summary;
  EXPECT_NE(summary.find("group channels-32 takes SMs and was measured beside compute (--overlap): deployed"), std::string::npos)
      << summary;

  const auto costly = [](const std::string& group) { return group == "channels-32" ? 0.3 : 0.02; };
  const TuneOutputs taxed = tune_results(with_overlap(grid, costly), TuneOptions{});
  EXPECT_NE(taxed.group, "channels-32");
  EXPECT_FALSE(taxed.profile.env.count("NCCL_MIN_CTAS"));
  summary = format_tune_summary(taxed, false);
  EXPECT_NE(summary.find("group channels-32 wins on collective time alone"), std::string::npos) << summary;
  EXPECT_NE(summary.find("not on collective + compute"), std::string::npos) << summary;

  // Only where both sides were measured beside compute: points of a sweep without it keep the rule.
  Results mixed = with_overlap(grid, [](const std::string&) { return 0.0; });
  for (RunResult& run : mixed.runs)
    if (run.group != "channels-32")
      for (PointResult& p : run.points) p.overlap.reset();
  const TuneOutputs partial = tune_results(mixed, TuneOptions{});
  ASSERT_TRUE(partial.withheld);
  EXPECT_EQ(partial.withheld->group, "channels-32");
}

}  // namespace
}  // namespace cctune::tuner
