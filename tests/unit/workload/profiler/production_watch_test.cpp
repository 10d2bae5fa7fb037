// The production watch alone (workload/profiler/production_watch.hpp), the profile's measured busbw
// and measured baseline it reads (tuner/profile, and the plugin's loader), and its findings in
// the workload file.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "core/error.hpp"
#include "tuner/plugin/production_profile.hpp"
#include "workload/profiler/production_watch.hpp"
#include "workload/workload_json.hpp"

namespace cctune::tuner {
namespace {

Profile profile_with_measurement() {
  Profile p;
  p.provenance.nccl_version = "2.28.9";
  ProfileRule r{Collective::AllReduce, 8, 1, 1048576, 67108863, Algorithm::Ring, Protocol::Simple, 32, 1.1, {}};
  r.measured_busbw_GBps = {{1048576, 60.0}, {4194304, 100.0}};
  p.rules.push_back(r);
  return p;
}

using Times = std::vector<std::pair<double, std::uint64_t>>;  // (µs per call, calls)

// One shape of `collective` and `bytes` whose calls took `us` each.
workload::CallStats shape_with(Collective collective, std::uint64_t bytes, const Times& times) {
  workload::CallStats s;
  s.shape.collective = collective;
  s.shape.bytes = bytes;
  s.shape.count = bytes / 4;
  for (const auto& [us, n] : times) {
    for (std::uint64_t i = 0; i < n; ++i) s.durations.add(us);
    s.durations.histogram[workload::duration_bucket(us)] += n;
    s.calls += n;
  }
  return s;
}

// An 8-rank, one-node communicator (this process is rank 3) with these shapes.
workload::Communicator comm_of(std::vector<workload::CallStats> shapes) {
  workload::Communicator c{"0xabc", 8, 1, {3}, {}, 0, {}};
  c.calls = std::move(shapes);
  std::sort(c.calls.begin(), c.calls.end(), [](const auto& a, const auto& b) { return a.shape < b.shape; });
  return c;
}

// An 8-rank allreduce of `bytes` whose calls took `us` each.
workload::Communicator comm_with(std::uint64_t bytes, const Times& times) {
  return comm_of({shape_with(Collective::AllReduce, bytes, times)});
}

// The time of one 8-rank allreduce of `bytes` (default 4 MiB) at `busbw` GB/s.
double us_at(double busbw, double bytes = 4194304.0) { return bytes / (busbw / (2.0 * 7 / 8) * 1e3); }

// A profile with no rules: NCCL's defaults were best. The sweep measured them for 8-rank,
// one-node allreduces at 1 MiB and 4 MiB.
Profile profile_with_baseline_only() {
  Profile p;
  p.provenance.nccl_version = "2.28.9";
  p.measured_baseline = {{Collective::AllReduce, 8, 1, 1048576, 30.6, 60.0}, {Collective::AllReduce, 8, 1, 4194304, 73.4, 100.0}};
  return p;
}

TEST(ProductionWatch, ReportsAShapeWellBelowTheSweep) {
  const auto findings = watch_communicator(comm_with(4194304, {{us_at(25), 20}}), profile_with_measurement());
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].rank, 3);
  EXPECT_EQ(findings[0].bytes, 4194304u);
  EXPECT_EQ(findings[0].profile_bytes, 4194304u);
  EXPECT_DOUBLE_EQ(findings[0].profile_busbw_GBps, 100.0);
  // The histogram's resolution (four buckets per octave) bounds how exact the live figure is.
  EXPECT_NEAR(findings[0].live_busbw_GBps, 25.0, 25.0 * 0.1);
  EXPECT_NEAR(findings[0].shortfall, 0.75, 0.03);
}

TEST(ProductionWatch, LeavesHealthyNoisyAndUnmeasuredShapesAlone) {
  const Profile p = profile_with_measurement();
  EXPECT_TRUE(watch_communicator(comm_with(4194304, {{us_at(95), 20}}), p).empty());   // 5 % below: noise
  EXPECT_TRUE(watch_communicator(comm_with(4194304, {{us_at(25), 2}}), p).empty());    // too few calls to judge
  EXPECT_TRUE(watch_communicator(comm_with(33554432, {{8 * us_at(25), 20}}), p).empty());  // no measurement within 2x
  // A job whose own calls spread as widely as the shortfall: not an outlier by the rule.
  EXPECT_TRUE(watch_communicator(comm_with(4194304, {{us_at(200), 10}, {us_at(12), 10}}), p).empty());
  Profile unmeasured = p;
  unmeasured.rules[0].measured_busbw_GBps.clear();
  EXPECT_TRUE(watch_communicator(comm_with(4194304, {{us_at(25), 20}}), unmeasured).empty());
  workload::Communicator other = comm_with(4194304, {{us_at(25), 20}});
  other.nranks = 16;  // the profile has no rules for this communicator's shape
  EXPECT_TRUE(watch_communicator(other, p).empty());
}

// Issue 35, seen on 2 x H200: a healthy DDP job's rank 0 reached each bucket's allreduce before
// rank 1, and its GPU time held the wait (3 calls a shape at 18-36 GB/s against the sweep's 167).
// Waits slow some calls of one rank; a slow link or configuration slows every call of every rank.
TEST(ProductionWatch, AnEarlyRanksWaitsAreNotAShortfall) {
  const Profile p = profile_with_baseline_only();  // 100 GB/s at 4 MiB
  // Most calls waited, the fastest quarter did not: healthy.
  EXPECT_TRUE(watch_communicator(comm_with(4194304, {{us_at(20), 10}, {us_at(97), 6}}), p).empty());
  // Three calls, all of them waiting: too few to tell a wait from the link.
  EXPECT_TRUE(watch_communicator(comm_with(4194304, {{us_at(18), 2}, {us_at(21), 1}}), p).empty());
  // One channel: every call slow, the fastest too.
  const auto findings = watch_communicator(comm_with(4194304, {{us_at(18), 10}, {us_at(21), 6}}), p);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_NEAR(findings[0].live_busbw_GBps, 21.0, 21.0 * 0.1);  // the faster calls' busbw
  EXPECT_NEAR(findings[0].shortfall, 0.79, 0.03);
}

TEST(ProductionWatch, ProfileCarriesMeasuredBusbwCompatibly) {
  const Profile p = profile_with_measurement();
  const ProfileResult back = parse_profile(format_profile(p));
  ASSERT_TRUE(back.profile) << back.error;
  EXPECT_EQ(*back.profile, p);
  std::string text = format_profile(p);
  ASSERT_NE(text.find("\"measured_busbw_GBps\""), std::string::npos);
  const std::string bad = std::string(text).replace(text.find("\"measured_busbw_GBps\""), 21, "\"measured_busbw_GBps\": [[1, -2]], \"x\"");
  const ProfileResult refused = parse_profile(bad);
  EXPECT_FALSE(refused.profile);
  EXPECT_NE(refused.error.find("measured_busbw_GBps"), std::string::npos) << refused.error;
}

// Issue 35: "NCCL's defaults are best here" (no rule) still leaves the job watched, against
// NCCL's defaults as the sweep measured them.
TEST(ProductionWatch, NoRulesButABaselineReportsASlowShapeAndNotAHealthyOne) {
  const Profile p = profile_with_baseline_only();
  const auto findings = watch_communicator(comm_with(4194304, {{us_at(25), 20}}), p);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].reference, workload::WatchReference::Baseline);
  EXPECT_EQ(findings[0].rank, 3);
  EXPECT_EQ(findings[0].profile_bytes, 4194304u);
  EXPECT_DOUBLE_EQ(findings[0].profile_busbw_GBps, 100.0);
  EXPECT_NEAR(findings[0].shortfall, 0.75, 0.03);
  EXPECT_TRUE(watch_communicator(comm_with(4194304, {{us_at(95), 20}}), p).empty());  // healthy: within noise
  // The baseline of another communicator shape says nothing about this one.
  workload::Communicator other = comm_with(4194304, {{us_at(25), 20}});
  other.nranks = 16;
  EXPECT_TRUE(watch_communicator(other, p).empty());
  // Collectives no rule can steer are watched too: an alltoall the sweep measured at 80 GB/s.
  Profile with_alltoall = p;
  with_alltoall.measured_baseline.push_back({Collective::AllToAll, 8, 1, 8388608, 91.8, 80.0});
  const double alltoall_us = 8388608.0 / (20.0 / (7.0 / 8) * 1e3);  // 20 GB/s busbw
  const auto a2a = watch_communicator(comm_of({shape_with(Collective::AllToAll, 8388608, {{alltoall_us, 10}})}), with_alltoall);
  ASSERT_EQ(a2a.size(), 1u);
  EXPECT_EQ(a2a[0].collective, Collective::AllToAll);
  EXPECT_NEAR(a2a[0].shortfall, 0.75, 0.03);
}

// The sweep says nothing outside the sizes it measured; between two it asks no more than the
// smaller size showed (busbw grows with size).
TEST(ProductionWatch, AShapeOutsideTheMeasuredSizesIsNotJudged) {
  const Profile p = profile_with_baseline_only();  // 1 MiB at 60 GB/s, 4 MiB at 100 GB/s
  EXPECT_TRUE(watch_communicator(comm_with(6291456, {{us_at(10, 6291456), 20}}), p).empty());  // above 4 MiB, within 2x
  EXPECT_TRUE(watch_communicator(comm_with(786432, {{us_at(5, 786432), 20}}), p).empty());     // below 1 MiB, within 2x
  // 3 MiB lies between 2 MiB (60 GB/s) and 4 MiB (100 GB/s), nearer the latter, and is judged
  // against the smaller size: 58 GB/s is healthy, 15 GB/s is reported against 2 MiB's figure.
  Profile three = p;
  three.measured_baseline.push_back({Collective::AllReduce, 8, 1, 2097152, 61.2, 60.0});
  EXPECT_TRUE(watch_communicator(comm_with(3145728, {{us_at(58, 3145728), 20}}), three).empty());
  const auto between = watch_communicator(comm_with(3145728, {{us_at(15, 3145728), 20}}), three);
  ASSERT_EQ(between.size(), 1u);
  EXPECT_EQ(between[0].profile_bytes, 2097152u);
  EXPECT_DOUBLE_EQ(between[0].profile_busbw_GBps, 60.0);
  // A larger size alone is no reference: 12 MiB between 4 MiB (3x away) and 16 MiB.
  Profile sparse = p;
  sparse.measured_baseline.push_back({Collective::AllReduce, 8, 1, 16777216, 180.0, 163.1});
  EXPECT_TRUE(watch_communicator(comm_with(12582912, {{us_at(10, 12582912), 20}}), sparse).empty());
}

TEST(ProductionWatch, ARuleWinsOverTheBaselineWhereItCoversTheShape) {
  Profile p = profile_with_measurement();  // a rule for 1 MiB - 64 MiB: 100 GB/s measured at 4 MiB
  p.measured_baseline = {{Collective::AllReduce, 8, 1, 524288, 18.4, 50.0}, {Collective::AllReduce, 8, 1, 4194304, 244.7, 30.0}};
  // 4 MiB at 40 GB/s: healthy by NCCL's defaults (30), slow by the rule that runs there (100).
  // 512 KiB, which no rule covers, at 10 GB/s: slow by NCCL's defaults (50).
  const auto findings = watch_communicator(
      comm_of({shape_with(Collective::AllReduce, 4194304, {{us_at(40), 20}}), shape_with(Collective::AllReduce, 524288, {{us_at(10, 524288), 20}})}),
      p);
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[0].bytes, 524288u);
  EXPECT_EQ(findings[0].reference, workload::WatchReference::Baseline);
  EXPECT_DOUBLE_EQ(findings[0].profile_busbw_GBps, 50.0);
  EXPECT_EQ(findings[1].bytes, 4194304u);
  EXPECT_EQ(findings[1].reference, workload::WatchReference::Rule);
  EXPECT_DOUBLE_EQ(findings[1].profile_busbw_GBps, 100.0);
  // A rule with nothing measured near the shape: not judged, though the baseline has 4 MiB (it
  // measured another choice than the one the rule makes NCCL run).
  p.rules[0].measured_busbw_GBps.clear();
  EXPECT_TRUE(watch_communicator(comm_with(4194304, {{us_at(5), 20}}), p).empty());
}

TEST(ProductionWatch, TheWarningSaysWhichReferenceItUsed) {
  workload::WatchFinding f{3, Collective::AllReduce, 4194304, 25.0, 100.0, 4194304, 0.75, workload::WatchReference::Baseline};
  const std::string baseline = watch_warning("0xabc", f, "/w/workload.json");
  EXPECT_NE(baseline.find("cctune watch: communicator 0xabc rank 3: allreduce of 4194304 bytes runs at 25.00 GB/s busbw, 75% below "
                          "the 100.00 GB/s the profile's sweep measured with NCCL's defaults at 4194304 bytes (/w/workload.json)"),
            std::string::npos)
      << baseline;
  f.reference = workload::WatchReference::Rule;
  EXPECT_NE(watch_warning("0xabc", f, "/w/workload.json").find("measured with its rule at 4194304 bytes"), std::string::npos);
}

TEST(ProductionWatch, TheWorkloadFileRecordsTheReference) {
  workload::Workload w;
  w.format = "nccl-profiler";
  w.sources = {"x"};
  w.communicators.push_back(comm_with(4194304, {{us_at(25), 20}}));
  w.communicators[0].watch = watch_communicator(w.communicators[0], profile_with_baseline_only());
  ASSERT_EQ(w.communicators[0].watch.size(), 1u);
  nlohmann::json j = workload::to_json(w);
  EXPECT_EQ(j["communicators"][0]["watch"][0]["reference"], "baseline");
  EXPECT_EQ(workload::workload_from_json(j), w);
  // Files from before the reference was recorded: their findings were all against rules.
  j["communicators"][0]["watch"][0].erase("reference");
  EXPECT_EQ(workload::workload_from_json(j).communicators[0].watch[0].reference, workload::WatchReference::Rule);
  j["communicators"][0]["watch"][0]["reference"] = "guess";
  try {
    (void)workload::workload_from_json(j);
    ADD_FAILURE() << "an unknown reference was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("communicators[0].watch[0].reference"), std::string::npos) << e.what();
  }
}

// The loader the plugin uses (CCTUNE_PROFILE) keeps the baseline the watch compares with.
// A one-GPU sweep measures one-rank communicators, whose bus bandwidth is 0 (nccl-tests' bus
// factor): its profile must read back (it did not: every one-GPU sweep failed at its end), and
// the watch has nothing to compare there.
TEST(ProductionWatch, AOneRankBaselineReadsBackAndIsNotJudged) {
  Profile p;
  p.provenance.nccl_version = "2.28.9";
  p.measured_baseline = {{Collective::AllReduce, 1, 1, 4194304, 6.3, 0.0}};
  const ProfileResult back = parse_profile(format_profile(p));
  ASSERT_TRUE(back.profile) << back.error;
  EXPECT_EQ(back.profile->measured_baseline, p.measured_baseline);
  workload::Communicator one = comm_with(4194304, {{40.0, 20}});
  one.nranks = 1;
  EXPECT_TRUE(watch_communicator(one, p).empty());
  // A negative figure is still refused.
  std::string text = format_profile(p);
  const auto at = text.find("\"busbw_GBps\": 0");
  ASSERT_NE(at, std::string::npos) << text;
  const ProfileResult refused = parse_profile(text.replace(at, 15, "\"busbw_GBps\": -1"));
  EXPECT_FALSE(refused.profile);
  EXPECT_NE(refused.error.find("measured_baseline[0]"), std::string::npos) << refused.error;
}

TEST(ProductionWatch, ThePluginsLoaderKeepsTheMeasuredBaseline) {
  const std::string path = (std::filesystem::temp_directory_path() / ("cctune_watch_baseline_" + std::to_string(::getpid()) + ".json")).string();
  { std::ofstream(path) << format_profile(profile_with_baseline_only()); }
  const ProductionProfile loaded = load_production_profile(path, RuntimeFacts{22809, ""});
  std::filesystem::remove(path);
  ASSERT_TRUE(loaded.profile) << loaded.problem;
  EXPECT_EQ(loaded.profile->measured_baseline, profile_with_baseline_only().measured_baseline);
  EXPECT_TRUE(loaded.profile->rules.empty());
}

}  // namespace
}  // namespace cctune::tuner
