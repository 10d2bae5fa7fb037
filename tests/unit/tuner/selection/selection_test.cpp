// Selection from hand-written NCCL-like results (tests/fixtures/tuning/make_fixtures.py
// says what each row is for). No GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "core/results_json.hpp"
#include "tuner/export/env_file.hpp"
#include "tuner/selection/ranges.hpp"
#include "tuner/selection/selection.hpp"
#include "tuner/selection/timing.hpp"

namespace cctune::tuner {
namespace {

constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();

Results fixture(const std::string& name) { return load_results(std::string(CCTUNE_SOURCE_DIR) + "/tests/fixtures/tuning/" + name); }

const SizeDecision& decision_at(const TuneOutputs& out, Collective c, std::uint64_t size) {
  for (const SizeDecision& d : out.decisions)
    if (d.shape.collective == c && d.size_bytes == size) return d;
  throw std::runtime_error("no decision at " + std::to_string(size));
}

TEST(Timing, HalfWidthFromRelNoiseElseFromSamples) {
  PointResult p;
  p.iter_us.median = 100;
  p.iter_us.count = 100;
  p.iter_us.stddev = 10;
  p.rel_noise = 0.02;
  EXPECT_DOUBLE_EQ(timing_of(p).halfwidth_us, 2.0);
  p.rel_noise = 0;
  EXPECT_NEAR(timing_of(p).halfwidth_us, 1.96, 1e-9);
  p.rel_noise = std::numeric_limits<double>::infinity();
  EXPECT_NEAR(timing_of(p).halfwidth_us, 1.96, 1e-9);
  p.iter_us.count = 1;
  EXPECT_DOUBLE_EQ(timing_of(p).halfwidth_us, 100.0);  // one sample proves nothing
}

TEST(Timing, SignificanceNeedsNoiseSeparationAndMinimumGain) {
  EXPECT_TRUE(significantly_faster({94, 1}, {100, 1}, 0.02));
  EXPECT_FALSE(significantly_faster({97.5, 2}, {100, 2}, 0.02));   // 2.5% faster, intervals overlap
  EXPECT_FALSE(significantly_faster({98.5, 0.1}, {100, 0.1}, 0.02));  // clear but under 2%
  EXPECT_TRUE(significantly_faster({98.5, 0.1}, {100, 0.1}, 0.01));
  EXPECT_FALSE(significantly_faster({0, 0}, {100, 1}, 0.02));
  // Latency-bound: 5% faster and clear of noise, but 0.45 us saved is under the absolute floor.
  EXPECT_TRUE(significantly_faster({8.55, 0.05}, {9.0, 0.05}, 0.02));
  EXPECT_FALSE(significantly_faster({8.55, 0.05}, {9.0, 0.05}, 0.02, 0.75));
  EXPECT_TRUE(significantly_faster({94, 1}, {100, 1}, 0.02, 0.75));
}

TEST(Ranges, GeometricMidpointsAndEdges) {
  EXPECT_EQ(range_boundary(512, 4096), 1448u);  // floor(sqrt(512 * 4096))
  EXPECT_EQ(range_boundary(7, 8), 7u);
  EXPECT_EQ(range_boundary(1u << 20, 4u << 20), 2u << 20);
  const auto r = merge_ranges({8, 64, 512, 4096, 32768}, {1, 1, -1, 2, 2}, true);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].min_bytes, 0u);
  EXPECT_EQ(r[0].max_bytes, range_boundary(64, 512));
  EXPECT_EQ(r[1].min_bytes, r[0].max_bytes + 1);
  EXPECT_EQ(r[1].max_bytes, range_boundary(512, 4096));
  EXPECT_EQ(r[2].min_bytes, r[1].max_bytes + 1);
  EXPECT_EQ(r[2].max_bytes, kMax);
  EXPECT_EQ(r[2].first, 3u);
  EXPECT_EQ(r[2].last, 4u);
  const auto tight = merge_ranges({8, 64}, {1, 1}, false);
  ASSERT_EQ(tight.size(), 1u);
  EXPECT_EQ(tight[0].min_bytes, 8u);
  EXPECT_EQ(tight[0].max_bytes, 64u);
  EXPECT_THROW(merge_ranges({64, 8}, {1, 1}, true), std::invalid_argument);
}

TEST(Selection, ProfileEnvHoldsTheGroupsSettingsNotTheSweepsPlugin) {
  // What a sweep records per run: the group's settings plus the in-executable plugin the
  // workers measured with, and (nccl_env) everything NCCL read, the caller's NVLS=0 included.
  Results results = fixture("h200x8_allreduce.results.json");
  for (RunResult& run : results.runs) {
    run.env["NCCL_TUNER_PLUGIN"] = "STATIC_PLUGIN";
    run.nccl_env = run.env;
    run.nccl_env["NCCL_NVLS_ENABLE"] = "0";
    run.nccl_env["NCCL_DEBUG"] = "WARN";
  }
  // The group takes SMs: tune withholds it (do_no_harm_test.cpp); tune --job deploys it by name.
  TuneOptions forced;
  forced.force_group = "channels-32";
  const TuneOutputs out = tune_results(results, forced);
  ASSERT_EQ(out.group, "channels-32");
  const std::map<std::string, std::string> want = {{"NCCL_MAX_CTAS", "32"}, {"NCCL_MIN_CTAS", "32"}};
  EXPECT_EQ(out.profile.env, want);  // the caller's NVLS=0 is provenance, not a setting to deploy
  const std::map<std::string, std::string> baseline = {
      {"NCCL_DEBUG", "WARN"}, {"NCCL_MAX_CTAS", "32"}, {"NCCL_MIN_CTAS", "32"}, {"NCCL_NVLS_ENABLE", "0"}};
  EXPECT_EQ(out.profile.provenance.baseline_env, baseline);
}

// --emulate-nodes records how it split the host in the run's env; that is no setting to deploy
// (and its text cannot be written to nccl.env: tune used to fail on such results).
TEST(Selection, EmulatedHostIdsStayOutOfTheProfile) {
  Results results = fixture("h200x8_allreduce.results.json");
  for (RunResult& run : results.runs) run.env["NCCL_HOSTID"] = "<host>-emu<j>: 2 emulated nodes per host";
  const TuneOutputs out = tune_results(results, TuneOptions{});
  EXPECT_EQ(out.profile.env.count("NCCL_HOSTID"), 0u);
  EXPECT_NO_THROW(format_env_file(out.profile, {"/opt/lib/libnccl-tuner-cctune.so", "/out/profile.json"}));
}

// A results file may come from someone else: its groups' env becomes the profile's, nccl.env's and
// tune --job's runs' (review R1, J16: LD_PRELOAD in a group's env reached all three). Refused in
// one line naming the group and the key, whichever group would win.
TEST(Selection, ResultsGroupEnvTakesOnlyWhatAGroupMaySet) {
  for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{
           {"LD_PRELOAD", "/tmp/marker.so"}, {"NCCL_NET_PLUGIN", "/tmp/net.so"}, {"NCCL_SOCKET_IFNAME", "eth0 eth1"}}) {
    Results results = fixture("h200x8_allreduce.results.json");
    results.runs.back().env[key] = value;
    try {
      tune_results(results, TuneOptions{});
      ADD_FAILURE() << key << " was accepted";
    } catch (const UsageError& e) {
      const std::string m = e.describe();
      EXPECT_NE(m.find("group \"" + results.runs.back().group + "\" sets " + key), std::string::npos) << m;
      EXPECT_NE(m.find("refused"), std::string::npos) << m;
      EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    }
  }
}

TEST(Selection, GroupThatDisablesNvlsKeepsItAndOlderResultsDoNot) {
  Results results = fixture("h200x8_allreduce.results.json");
  // Older cctune forced NVLS off in every run's env and recorded no nccl_env: not a group's choice.
  for (RunResult& run : results.runs) run.env["NCCL_NVLS_ENABLE"] = "0";
  EXPECT_EQ(tune_results(results, TuneOptions{}).profile.env.count("NCCL_NVLS_ENABLE"), 0u);
  // A group that sets it (to compare NVLS on and off) carries it into the profile.
  for (RunResult& run : results.runs) run.nccl_env = run.env;
  EXPECT_EQ(tune_results(results, TuneOptions{}).profile.env.at("NCCL_NVLS_ENABLE"), "0");
}

// An 8-GPU NVSwitch node with NVLS on: NCCL offers nvls for allreduce, and forced nvls/simple
// beats NCCL's own choice at large sizes.
Results with_nvls_winning() {
  Results results = fixture("h200x8_allreduce.results.json");
  results.runs.resize(1);  // the "default" group
  RunResult& run = results.runs[0];
  run.env = {{"NCCL_TUNER_PLUGIN", "STATIC_PLUGIN"}};
  run.nccl_env = run.env;
  std::vector<PointResult> nvls;
  for (PointResult& p : run.points) {
    if (p.status != PointStatus::Ok) continue;
    p.offered_algos.known = algorithm_bit(Algorithm::Tree) | algorithm_bit(Algorithm::Ring) | algorithm_bit(Algorithm::Nvls);
    if (p.in_place || p.config.algo.has_value() || p.size_bytes < (32u << 20)) continue;
    PointResult n = p;
    n.config = {Algorithm::Nvls, Protocol::Simple, 0, false};
    n.chosen_algo = Algorithm::Nvls;
    n.chosen_proto = Protocol::Simple;
    n.iter_us.median = p.iter_us.median * 0.6;
    n.batch_us = p.batch_us * 0.6;
    n.rel_noise = 0.005;
    nvls.push_back(n);
  }
  run.points.insert(run.points.end(), nvls.begin(), nvls.end());
  return results;
}

TEST(Selection, PicksNvlsWhereItWinsAndRecordsWhatWasOffered) {
  const TuneOutputs out = tune_results(with_nvls_winning(), TuneOptions{});
  const ProfileRule* nvls_rule = nullptr;
  for (const ProfileRule& r : out.profile.rules)
    if (r.algorithm == Algorithm::Nvls) nvls_rule = &r;
  ASSERT_NE(nvls_rule, nullptr) << format_profile(out.profile);
  EXPECT_EQ(nvls_rule->protocol, Protocol::Simple);
  EXPECT_EQ(nvls_rule->max_bytes, 128u << 20);
  EXPECT_LE(nvls_rule->min_bytes, 32u << 20);
  EXPECT_NEAR(nvls_rule->expected_speedup, 1 / 0.6, 0.01);
  ASSERT_EQ(out.profile.provenance.offered.size(), 1u);
  const OfferedAlgorithms& o = out.profile.provenance.offered[0];
  EXPECT_EQ(o.collective, Collective::AllReduce);
  EXPECT_EQ(o.nranks, 8);
  EXPECT_EQ(o.nnodes, 1);
  EXPECT_EQ(o.algorithms, algorithm_bit(Algorithm::Tree) | algorithm_bit(Algorithm::Ring) | algorithm_bit(Algorithm::Nvls));
  // nccl.env: the group's settings (none) and the plugin lines; no NVLS setting of cctune's own.
  const std::string env = format_env_file(out.profile, {"/opt/cctune/lib/libnccl-tuner-cctune.so", "/out/profile.json"});
  EXPECT_EQ(env.find("NCCL_NVLS_ENABLE"), std::string::npos) << env;
  EXPECT_NE(env.find("\nNCCL_TUNER_PLUGIN=/opt/cctune/lib/libnccl-tuner-cctune.so\n"), std::string::npos) << env;
  EXPECT_NE(env.find("\nCCTUNE_PROFILE=/out/profile.json\n"), std::string::npos) << env;
  // ...and the profile reads back with its provenance.
  const ProfileResult back = parse_profile(format_profile(out.profile));
  ASSERT_TRUE(back.profile) << back.error;
  EXPECT_EQ(back.profile->provenance, out.profile.provenance);
}

// The raised-ceiling group scores best; it takes SMs, so tune names it and withholds it
// (do_no_harm_test.cpp), and tune --job's candidate forces it: these are that candidate's rules.
TEST(Selection, SingleNodeScoresRaisedCeilingGroupBestAndMergesItsRanges) {
  TuneOptions options;
  options.space = "default";
  options.results_path = "h200x8_allreduce.results.json";
  options.topology_fingerprint = "9f2c4e";  // the app's, from topo::topology_of (topology_section_test)
  const TuneOutputs scored = tune_results(fixture("h200x8_allreduce.results.json"), options);
  ASSERT_TRUE(scored.withheld);
  EXPECT_EQ(scored.withheld->group, "channels-32");
  options.force_group = "channels-32";
  const TuneOutputs out = tune_results(fixture("h200x8_allreduce.results.json"), options);

  EXPECT_EQ(out.group, "channels-32");
  EXPECT_EQ(out.profile.env.at("NCCL_MIN_CTAS"), "32");
  EXPECT_EQ(out.profile.env.at("NCCL_MAX_CTAS"), "32");
  EXPECT_EQ(out.profile.provenance.nccl_version, "2.28.3");
  EXPECT_EQ(out.profile.provenance.topology_fingerprint, "9f2c4e");
  ASSERT_EQ(out.groups.size(), 2u);
  // Issue 35: rules need their gain to clear the tolerance with its interval, so the small-size
  // ring/ll ch=4 rule (6% at ~12.7 us, 1% intervals: 0.51 us at the intervals' ends, under the
  // 0.75 us floor) is gone, and with it the default group's geometric-mean edge.
  EXPECT_NEAR(out.groups[0].geomean_speedup, 1.0041, 0.001);  // default: 128 MiB tree/simple only
  EXPECT_NEAR(out.groups[1].geomean_speedup, 1.0518, 0.002);
  EXPECT_GT(out.groups[1].speedup_low, 1.02);  // chosen on its weighted total, beyond noise

  ASSERT_EQ(out.profile.rules.size(), 2u);
  EXPECT_FALSE(decision_at(out, Collective::AllReduce, 8).switched);

  const ProfileRule& mid = out.profile.rules[0];  // 4 MiB and 32 MiB merged
  EXPECT_EQ(mid.collective, Collective::AllReduce);
  EXPECT_EQ(mid.nranks, 8);
  EXPECT_EQ(mid.nnodes, 1);
  EXPECT_EQ(mid.min_bytes, 4u << 20);  // its first win: NCCL's default below
  EXPECT_EQ(mid.max_bytes, 32u << 20);  // its last measured win (was the midpoint with 128 MiB)
  EXPECT_EQ(mid.algorithm, Algorithm::Ring);
  EXPECT_EQ(mid.protocol, Protocol::Simple);
  EXPECT_EQ(mid.channels, 32);
  EXPECT_NEAR(mid.expected_speedup, std::sqrt(47.0 / 44.5 * 205.0 / 190.6), 0.001);

  const ProfileRule& large = out.profile.rules[1];  // out-of-place decides, not the in-place copy
  EXPECT_EQ(large.min_bytes, 128u << 20);  // only the size measured (was 64 MiB + 1)
  EXPECT_EQ(large.max_bytes, 128u << 20);  // not extrapolated past the largest size
  EXPECT_EQ(large.algorithm, Algorithm::Tree);
  EXPECT_EQ(large.protocol, Protocol::Simple);
  EXPECT_EQ(large.channels, 0);
  ASSERT_EQ(out.rule_observed_channels.size(), 2u);
  EXPECT_EQ(out.rule_observed_channels[1], 32);

  // Within noise (4 KiB) and under the minimum gain (32 KiB): NCCL's default stays.
  EXPECT_FALSE(decision_at(out, Collective::AllReduce, 4096).switched);
  EXPECT_NE(decision_at(out, Collective::AllReduce, 4096).why.find("within noise"), std::string::npos);
  EXPECT_FALSE(decision_at(out, Collective::AllReduce, 32768).switched);
  // The wrong-result point (tree/simple, 20% faster) is never chosen.
  EXPECT_EQ(decision_at(out, Collective::AllReduce, 4u << 20).choice.config.algo, Algorithm::Ring);
  EXPECT_TRUE(validate_profile(out.profile).empty());
}

TEST(Selection, MinimumGainIsAnOption) {
  TuneOptions options;
  options.min_gain = 0.10;  // only switches worth 10% survive: none in this fixture
  const TuneOutputs out = tune_results(fixture("h200x8_allreduce.results.json"), options);
  // The raised ceiling alone gains ~3.4% (geometric mean), under the 10% asked for a group too.
  EXPECT_NEAR(out.groups[1].geomean_speedup, 1.034, 0.002);
  EXPECT_EQ(out.group, "default");
  EXPECT_TRUE(out.profile.env.empty());
  EXPECT_TRUE(out.profile.rules.empty());
}

TEST(Selection, AGroupSlowerWhereTheTimeIsSpentIsNotChosen) {
  Results r = fixture("h200x8_allreduce.results.json");
  // The raised-ceiling group wins overall, but make its 128 MiB points 1.6 times slower: that
  // size holds most of the grid's time (one call of each size), so the default group stays.
  // Issue 35: the size no longer vetoes the group; it is a cost, weighed like every other.
  for (RunResult& run : r.runs)
    if (run.group == "channels-32")
      for (PointResult& p : run.points)
        if (p.size_bytes == (128u << 20)) p.iter_us.median *= 1.6;
  const TuneOutputs out = tune_results(r, TuneOptions{});
  EXPECT_EQ(out.group, "default");
  ASSERT_EQ(out.groups.size(), 2u);
  EXPECT_TRUE(out.groups[1].eligible);
  EXPECT_LT(out.groups[1].job_speedup, 1.0);
  ASSERT_FALSE(out.groups[1].costs.empty());
  EXPECT_EQ(out.groups[1].costs.back().size_bytes, 128u << 20);
  EXPECT_NEAR(out.groups[1].costs.back().slowdown, 1.6 * 0.96 * 740.0 / 760.0, 1e-3);
}

TEST(Selection, TwoNodesSkipsFailedGroupAndUnobservedChoices) {
  const TuneOutputs out = tune_results(fixture("two_nodes.results.json"), {});
  EXPECT_EQ(out.group, "default");
  EXPECT_TRUE(out.profile.env.empty());
  EXPECT_EQ(out.profile.provenance.nccl_version, "2.28.9");  // "+cuda13.0" dropped
  EXPECT_EQ(out.profile.provenance.topology_fingerprint, "");
  ASSERT_EQ(out.groups.size(), 2u);
  EXPECT_FALSE(out.groups[1].eligible);
  EXPECT_NE(out.groups[1].reason.find("not measured"), std::string::npos);

  ASSERT_EQ(out.profile.rules.size(), 2u);
  const ProfileRule& ag = out.profile.rules[0];
  EXPECT_EQ(ag.collective, Collective::AllGather);
  EXPECT_EQ(ag.nranks, 16);
  EXPECT_EQ(ag.nnodes, 2);
  EXPECT_EQ(ag.min_bytes, 8192u);   // its first measured win: no rule below what was measured (issue 35)
  EXPECT_EQ(ag.max_bytes, 65536u);  // its last win, not the midpoint with NCCL's default at 1 MiB
  EXPECT_EQ(ag.protocol, Protocol::LL);
  EXPECT_NEAR(ag.expected_speedup, 1.111, 0.001);
  const ProfileRule& rs = out.profile.rules[1];  // auto/auto ch=16, NCCL observed running ring/simple
  EXPECT_EQ(rs.collective, Collective::ReduceScatter);
  EXPECT_EQ(rs.min_bytes, 16u << 20);
  EXPECT_EQ(rs.max_bytes, 16u << 20);
  EXPECT_EQ(rs.algorithm, Algorithm::Ring);
  EXPECT_EQ(rs.protocol, Protocol::Simple);
  EXPECT_EQ(rs.channels, 16);
  bool noted = false;
  for (const auto& n : out.notes) noted |= n.find("cannot name") != std::string::npos;
  EXPECT_TRUE(noted);
  EXPECT_FALSE(decision_at(out, Collective::ReduceScatter, 1u << 20).switched);
}

TEST(Selection, IgnoresRunsOfOtherBackends) {
  Results r = fixture("two_nodes.results.json");
  RunResult mpi = r.runs[0];  // same group name and sizes, every point 10x faster
  mpi.backend = "mpi";
  for (auto& p : mpi.points) {
    p.iter_us.median /= 10;
    p.batch_us /= 10;
  }
  r.runs.insert(r.runs.begin(), mpi);
  const TuneOutputs with_mpi = tune_results(r, {});
  const TuneOutputs without = tune_results(fixture("two_nodes.results.json"), {});
  EXPECT_EQ(with_mpi.profile.rules, without.profile.rules);
  EXPECT_EQ(with_mpi.groups.size(), 2u);
  EXPECT_TRUE(has_nccl_measurements(r));
  r.runs.erase(r.runs.begin() + 1, r.runs.end());  // only the MPI run left
  EXPECT_FALSE(has_nccl_measurements(r));
  EXPECT_THROW(tune_results(r, {}), UsageError);
}

TEST(Selection, RefusesResultsWithoutNccl) {
  Results r = fixture("two_nodes.results.json");
  r.meta.versions.erase("nccl");
  try {
    tune_results(r, {});
    FAIL() << "expected UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("NCCL version"), std::string::npos);
  }
}

TEST(Selection, RefusesResultsWithoutDefaultPoints) {
  Results r = fixture("two_nodes.results.json");
  for (auto& run : r.runs)
    std::erase_if(run.points, [](const PointResult& p) { return !p.config.algo && p.config.channels == 0; });
  EXPECT_THROW(tune_results(r, {}), UsageError);
}

TEST(Selection, NoiseWidensKeepDefault) {
  // The same single-node results with every point ten times noisier: nothing is proven.
  Results r = fixture("h200x8_allreduce.results.json");
  for (auto& run : r.runs)
    for (auto& p : run.points) p.rel_noise *= 10;
  const TuneOutputs out = tune_results(r, {});
  // The group is chosen on its weighted total only when the low end of its interval clears
  // the tolerance (issue 35): with 10% intervals, channels-32's 3-7% gains are not proven.
  EXPECT_EQ(out.group, "default");
  EXPECT_LT(out.groups[1].speedup_low, 1.0);
  EXPECT_GT(out.groups[1].job_speedup, 1.0);
  EXPECT_TRUE(out.profile.rules.empty());
}

// The sweep's confirmation round (issue 35): a size whose rule the interleaved re-measurement
// did not read faster keeps NCCL's default, and the rule that covered it stops at the sizes confirmed.
TEST(Selection, AnUnconfirmedSizeKeepsTheDefaultAndItsRuleShrinks) {
  const Results results = fixture("h200x8_allreduce.results.json");
  TuneOptions forced;  // the group whose rules the fixture's sizes hold (withheld unless forced)
  forced.force_group = "channels-32";
  const TuneOutputs proposed = tune_results(results, forced);
  std::vector<const SizeDecision*> ruled;
  for (const SizeDecision& d : proposed.decisions)
    if (d.switched && d.shape.collective == Collective::AllReduce) ruled.push_back(&d);
  // The fixture's rules: 4 MiB..32 MiB ring/simple/32 (measured at 4 and 32 MiB), 128 MiB tree/simple.
  ASSERT_EQ(ruled.size(), 3u);
  ASSERT_EQ(ruled[1]->size_bytes, 32u << 20);
  const std::size_t rules_before = proposed.profile.rules.size();
  TuneOptions options = forced;
  for (const SizeDecision* d : ruled) options.confirmations.push_back({d->shape, d->size_bytes, 1.10, 1.05, 1.15, true});
  options.confirmations[1] = {ruled[1]->shape, ruled[1]->size_bytes, 1.01, 0.97, 1.05, false};
  const TuneOutputs confirmed = tune_results(results, options);
  EXPECT_EQ(confirmed.confirmed_sizes, static_cast<int>(ruled.size()) - 1);
  EXPECT_EQ(confirmed.unconfirmed_sizes, 1);
  const SizeDecision& kept = decision_at(confirmed, Collective::AllReduce, ruled[1]->size_bytes);
  EXPECT_FALSE(kept.switched);
  EXPECT_NE(kept.why.find("confirmation round read the rule x1.010 [0.970, 1.050]"), std::string::npos) << kept.why;
  for (const ProfileRule& r : confirmed.profile.rules)
    EXPECT_FALSE(r.collective == Collective::AllReduce && r.min_bytes <= ruled[1]->size_bytes && ruled[1]->size_bytes <= r.max_bytes)
        << "a rule still covers the unconfirmed size " << ruled[1]->size_bytes;
  ASSERT_EQ(confirmed.profile.rules.size(), rules_before);
  EXPECT_EQ(confirmed.profile.rules[0].min_bytes, 4u << 20);
  EXPECT_EQ(confirmed.profile.rules[0].max_bytes, 4u << 20) << "the 4 MiB..32 MiB rule now ends at its confirmed 4 MiB";
  EXPECT_EQ(confirmed.profile.measured_baseline.size(), proposed.profile.measured_baseline.size());
  // A size the round could not measure (a group of the proposed profile failed) keeps the default too.
  TuneOptions unmeasured = forced;
  unmeasured.confirmations.push_back({ruled[2]->shape, ruled[2]->size_bytes, 0, 0, 0, false});
  const TuneOutputs failed = tune_results(results, unmeasured);
  EXPECT_FALSE(decision_at(failed, Collective::AllReduce, ruled[2]->size_bytes).switched);
  EXPECT_NE(decision_at(failed, Collective::AllReduce, ruled[2]->size_bytes).why.find("could not measure"), std::string::npos);
  EXPECT_EQ(failed.profile.rules.size(), rules_before - 1);
  // Readings at sizes no rule was proposed for change nothing.
  TuneOptions elsewhere = forced;
  elsewhere.confirmations.push_back({ruled[0]->shape, 3, 0.5, 0.4, 0.6, false});
  EXPECT_EQ(tune_results(results, elsewhere).profile.rules.size(), rules_before);
}

}  // namespace
}  // namespace cctune::tuner
