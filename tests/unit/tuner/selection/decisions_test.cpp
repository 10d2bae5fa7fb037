// Issue 35's decisions on recorded results (tests/fixtures/tuning/make_decision_fixtures.py):
// a group is judged by the weighted total time with an interval and no single size vetoes it;
// noise never becomes a rule; a rule never covers sizes that were not measured; the profile
// carries NCCL's measured default at every size. No GPU.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/results_json.hpp"
#include "tuner/export/outputs.hpp"
#include "tuner/profile/profile.hpp"
#include "tuner/selection/selection.hpp"

namespace cctune::tuner {
namespace {

constexpr std::uint64_t MiB = 1024 * 1024;

Results fixture(const std::string& name) { return load_results(std::string(CCTUNE_SOURCE_DIR) + "/tests/fixtures/tuning/" + name); }

const GroupScore& score_of(const TuneOutputs& out, const std::string& group) {
  for (const GroupScore& g : out.groups)
    if (g.group == group) return g;
  throw std::runtime_error("no group " + group);
}

// The job recorded in startup_veto.results.json's meta.settings.workload.
std::vector<JobPoint> startup_job() {
  const auto ar = Collective::AllReduce, bc = Collective::Broadcast;
  const auto f32 = DType::Float32;
  return {{ar, f32, 16 * MiB, 4, 2, 10}, {ar, f32, 32 * MiB, 4, 2, 2}, {ar, f32, 4, 4, 2, 1},
          {bc, f32, 28, 4, 2, 0.03}, {bc, f32, 192 * MiB, 4, 2, 0.03}};
}

TEST(Decisions, AStartUpCallDoesNotVetoAGroupTheJobGainsFrom) {
  TuneOptions options;
  options.job_weights = startup_job();
  options.job_step_us = 150000;  // the job's step: without one no group is deployed (do_no_harm_test.cpp)
  const TuneOutputs out = tune_results(fixture("startup_veto.results.json"), options);
  // On 8646a77: "group sockets-4x4 not eligible: slower than NCCL's default at 28 bytes (broadcast)".
  EXPECT_EQ(out.group, "sockets-4x4");
  EXPECT_EQ(out.profile.env.at("NCCL_SOCKET_NTHREADS"), "4");
  const GroupScore& s = score_of(out, "sockets-4x4");
  EXPECT_TRUE(s.eligible) << s.reason;
  // default 10 x 9800 + 2 x 19500 + 60 + 0.03 x (40 + 120000) us against 10 x 7000 + ...
  EXPECT_NEAR(s.default_us, 98000 + 39000 + 60 + 0.03 * 120040, 1e-6);
  EXPECT_NEAR(s.group_us, 70000 + 13400 + 60.5 + 0.03 * 60050, 1e-6);
  EXPECT_GT(s.speedup_low, 1.5);
  EXPECT_LT(s.speedup_low, s.job_speedup);
  EXPECT_GT(s.speedup_high, s.job_speedup);
  // The 28 B broadcast is slower beyond noise: it is printed with its weight and cost.
  ASSERT_EQ(s.costs.size(), 1u);
  EXPECT_EQ(s.costs[0].shape.collective, Collective::Broadcast);
  EXPECT_EQ(s.costs[0].size_bytes, 28u);
  EXPECT_DOUBLE_EQ(s.costs[0].weight, 0.03);
  EXPECT_NEAR(s.costs[0].cost_us, 0.3, 1e-9);
  const std::string summary = format_tune_summary(out, false);
  EXPECT_NE(summary.find("slower at broadcast 28 B: x1.250, 0.03 calls per step, costs 0.30 us per step"), std::string::npos) << summary;
  EXPECT_NE(summary.find("groups weighed by the job's calls per step"), std::string::npos) << summary;
}

TEST(Decisions, AGroupWhoseTotalGainIsWithinItsIntervalIsNotChosen) {
  // The same job with sockets-4x4's gains shrunk to 1.5%: its interval reaches below the
  // tolerance, so NCCL's defaults stay.
  Results r = fixture("startup_veto.results.json");
  for (RunResult& run : r.runs)
    if (run.group == "sockets-4x4")
      for (PointResult& p : run.points)
        if (p.size_bytes >= MiB) p.iter_us.median = 0.985 * (p.size_bytes == 16 * MiB ? 9800.0 : p.size_bytes == 32 * MiB ? 19500.0 : 120000.0);
  TuneOptions options;
  options.job_weights = startup_job();
  const TuneOutputs out = tune_results(r, options);
  EXPECT_EQ(out.group, "default");
  EXPECT_GT(score_of(out, "sockets-4x4").job_speedup, 1.0);
  EXPECT_FALSE(score_of(out, "sockets-4x4").job_beyond_noise);
}

TEST(Decisions, NoiseAtSmallSizesDoesNotBecomeRulesNorVetoAGroup) {
  // channels-16 scores best; it takes SMs, so tune withholds it (do_no_harm_test.cpp) and tune
  // --job's candidate forces it: the decisions below are that candidate's.
  const TuneOutputs scored = tune_results(fixture("noise_grid.results.json"), TuneOptions{});
  ASSERT_TRUE(scored.withheld);
  EXPECT_EQ(scored.withheld->group, "channels-16");
  TuneOptions forced;
  forced.force_group = "channels-16";
  const TuneOutputs out = tune_results(fixture("noise_grid.results.json"), forced);
  // 8-128 B: 8% at ~12 us with 1.5% intervals clears neither the 0.75 us floor at the ends of
  // the intervals: no rule (on 8646a77, ring/ll ch=4 from 0 B to 128 B).
  for (const ProfileRule& rule : out.profile.rules) EXPECT_GE(rule.min_bytes, MiB) << rule.min_bytes;
  // The group slower at 8 and 16 B is chosen on the weighted total, its loss printed (on
  // 8646a77: "not eligible: slower than NCCL's default at 8 bytes (allreduce)").
  EXPECT_EQ(out.group, "channels-16");
  const GroupScore& s = score_of(out, "channels-16");
  ASSERT_EQ(s.costs.size(), 2u);
  EXPECT_EQ(s.costs[0].size_bytes, 8u);
  EXPECT_EQ(s.costs[1].size_bytes, 16u);
  EXPECT_DOUBLE_EQ(s.costs[0].weight, 1.0);  // a grid: one call of every measured size
  EXPECT_NE(out.weights_note.find("one call of every measured size"), std::string::npos);
  // The real gain at 8 MiB is a rule covering exactly the size measured.
  ASSERT_EQ(out.profile.rules.size(), 1u);
  EXPECT_EQ(out.profile.rules[0].min_bytes, 8 * MiB);
  EXPECT_EQ(out.profile.rules[0].max_bytes, 8 * MiB);
  EXPECT_EQ(out.profile.rules[0].channels, 16);
}

TEST(Decisions, ARuleCoversOnlyTheSizesMeasured) {
  for (bool extend : {true, false}) {  // `--no-extend` no longer changes anything
    TuneOptions options;
    options.extend_edges = extend;
    const TuneOutputs out = tune_results(fixture("fsdp_allgather.results.json"), options);
    ASSERT_EQ(out.profile.rules.size(), 1u);
    EXPECT_EQ(out.profile.rules[0].collective, Collective::AllGather);
    EXPECT_EQ(out.profile.rules[0].min_bytes, 24 * MiB);  // on 8646a77: 0
    EXPECT_EQ(out.profile.rules[0].max_bytes, 24 * MiB);
  }
}

TEST(Decisions, TheProfileKeepsNcclsMeasuredDefaultAtEverySize) {
  const TuneOutputs out = tune_results(fixture("fsdp_allgather.results.json"), TuneOptions{});
  ASSERT_EQ(out.profile.measured_baseline.size(), 2u);
  const MeasuredBaseline& ag = out.profile.measured_baseline[0];
  EXPECT_EQ(ag.collective, Collective::AllGather);
  EXPECT_EQ(ag.nranks, 4);
  EXPECT_EQ(ag.size_bytes, 24 * MiB);
  EXPECT_DOUBLE_EQ(ag.time_us, 300.0);
  EXPECT_NEAR(ag.busbw_GBps, 24.0 * MiB / 300e3 * 0.75, 1e-9);
  // The reduce-scatter keeps NCCL's default: no rule, but its measured time is there.
  EXPECT_EQ(out.profile.measured_baseline[1].collective, Collective::ReduceScatter);
  EXPECT_DOUBLE_EQ(out.profile.measured_baseline[1].time_us, 1100.0);
  const ProfileResult back = parse_profile(format_profile(out.profile));
  ASSERT_TRUE(back.profile) << back.error;
  EXPECT_EQ(back.profile->measured_baseline, out.profile.measured_baseline);
}

TEST(Decisions, AMeasuredBaselineEntryOutOfShapeIsRefusedByName) {
  const std::string head = R"({"schema":"cctune.profile/1","provenance":{"nccl_version":"2.28.3"},"env":{},"rules":[],)";
  const ProfileResult ok = parse_profile(head + R"("measured_baseline":[{"collective":"alltoall","nranks":4,"nnodes":1,
    "size_bytes":1024,"time_us":10.5,"busbw_GBps":0.1}]})");
  ASSERT_TRUE(ok.profile) << ok.error;
  EXPECT_EQ(ok.profile->measured_baseline[0].collective, Collective::AllToAll);
  const ProfileResult bad = parse_profile(head + R"("measured_baseline":[{"collective":"allreduce","nranks":4,"nnodes":1,
    "size_bytes":1024,"time_us":-1,"busbw_GBps":0.1}]})");
  EXPECT_FALSE(bad.profile);
  EXPECT_NE(bad.error.find("profile.measured_baseline[0]"), std::string::npos) << bad.error;
  // Profiles without the field still read.
  EXPECT_TRUE(parse_profile(head + R"("measured_baseline":[]})").profile);
}

// Recorded on 2 x H200 (tests/fixtures/tuning/device/README.md). On NVLink the sweep measured
// channels-32 5 % faster in the job's collective time, and tune proposed it; on the job it was
// "same" (verify --job 1.149 [0.938, 1.667], tune --job 1.049 [1.009, 1.436]): the collectives
// are a few percent of the step. Held against the job's step, that saving changes nothing; and
// as a group that takes SMs it is not deployed on collective time at all (do_no_harm.hpp).
TEST(Decisions, AGainTheJobsStepCannotShowChangesNothing) {
  const auto ar = Collective::AllReduce;
  TuneOptions options;
  options.job_weights = {{ar, DType::Float32, 67125248, 2, 1, 1.0}};  // as recorded: one bucket a "step"
  const Results nvlink = fixture("device/nvlink_ddp_2xh200.results.json");
  const TuneOutputs sweep_only = tune_results(nvlink, options);
  ASSERT_TRUE(sweep_only.withheld);
  EXPECT_EQ(sweep_only.withheld->group, "channels-32");
  EXPECT_EQ(sweep_only.group, "default");
  options.job_step_us = 3005.0 / 3;  // verify --job's default step, three buckets: a third a bucket
  const TuneOutputs out = tune_results(nvlink, options);
  EXPECT_EQ(out.group, "default");
  EXPECT_TRUE(out.profile.env.empty());
  EXPECT_TRUE(out.profile.rules.empty());
  EXPECT_FALSE(out.profile.measured_baseline.empty());  // the watch still has NCCL's defaults to compare with
  const std::string summary = format_tune_summary(out, false);
  EXPECT_NE(summary.find("# not deployed: group channels-32"), std::string::npos) << summary;
  // The step gate on its own, with a group that takes no SMs: over sockets sockets-2x2 saves about
  // 20 ms a step; held against a step a thousand times longer, the job could not show it.
  TuneOptions long_step;
  long_step.job_weights = {{ar, DType::Float32, 67125248, 2, 2, 1.0}};
  long_step.job_step_us = 34316.0 * 1000;
  const TuneOutputs kept = tune_results(fixture("device/socket_ddp_2xh200.results.json"), long_step);
  EXPECT_TRUE(kept.kept_defaults);
  EXPECT_EQ(kept.group, "default");
  EXPECT_TRUE(kept.profile.env.empty());
  EXPECT_GT(kept.step_saving_us, 0.0);
  EXPECT_LT(kept.step_saving_us, 0.02 * long_step.job_step_us);
  EXPECT_NE(format_tune_summary(kept, false).find("# no change: the best profile measured saves"), std::string::npos);

  // FSDP2 on NVLink: an all-gather and a reduce-scatter a step, 9 calls of the job's 11.2 ms.
  TuneOptions fsdp;
  fsdp.job_weights = {{Collective::AllGather, DType::Float32, 67125248, 2, 1, 6.0},
                      {Collective::ReduceScatter, DType::Float32, 67125248, 2, 1, 3.0}};
  fsdp.job_step_us = 11170;
  const TuneOutputs f = tune_results(fixture("device/nvlink_fsdp2_2xh200.results.json"), fsdp);
  EXPECT_TRUE(f.withheld);  // channels-32 again: it takes SMs
  EXPECT_TRUE(f.profile.env.empty());
}

// The same rule keeps a gain the step shows: sockets between 2 emulated nodes, where verify
// --job measured x2.830 on the job.
TEST(Decisions, AGainTheJobsStepShowsIsKept) {
  TuneOptions options;
  options.job_weights = {{Collective::AllReduce, DType::Float32, 67125248, 2, 2, 1.0}};
  options.job_step_us = 34316.0 / 3;
  const TuneOutputs out = tune_results(fixture("device/socket_ddp_2xh200.results.json"), options);
  EXPECT_FALSE(out.kept_defaults);
  EXPECT_EQ(out.group, "sockets-2x2");
  EXPECT_EQ(out.profile.env.at("NCCL_SOCKET_NTHREADS"), "2");
  EXPECT_GT(out.step_saving_us, 0.02 * options.job_step_us);
  const std::string summary = format_tune_summary(out, false);
  EXPECT_NE(summary.find("# the job's step: "), std::string::npos) << summary;
}

// A capture's issue cadence shorter than its collectives' time per step is the host running
// ahead (DDP over sockets on 4xH200: 9.0 ms between calls, 1 call of 64 MiB a step at ~23 ms):
// the step is then the collectives' time, never a saving of 165 % of "the step".
TEST(Decisions, AStepShorterThanItsCollectivesIsTheCollectivesTime) {
  TuneOptions options;
  options.job_weights = {{Collective::AllReduce, DType::Float32, 67125248, 2, 2, 1.0}};
  options.job_step_us = 9005.0;
  const TuneOutputs out = tune_results(fixture("device/socket_ddp_2xh200.results.json"), options);
  ASSERT_EQ(out.job_times.size(), 1u);
  EXPECT_TRUE(out.step_from_collectives);
  EXPECT_DOUBLE_EQ(out.job_step_us, out.job_times[0].default_us);
  EXPECT_GT(out.job_step_us, options.job_step_us);
  EXPECT_LT(out.step_saving_us, out.job_step_us);
  const std::string summary = format_tune_summary(out, false);
  EXPECT_NE(summary.find("the capture's issue cadence was shorter"), std::string::npos) << summary;
}

}  // namespace
}  // namespace cctune::tuner
