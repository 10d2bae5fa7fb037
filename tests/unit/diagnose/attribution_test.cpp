#include "diagnose/attribution.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "synthetic_cluster.hpp"

namespace cctune::diagnose {
namespace {

using testing::ClusterShape;
using testing::healthy_cluster;
using testing::PairSchedule;

constexpr std::uint32_t kTrials = 200;

std::vector<std::string> names(const Diagnosis& d) {
  std::vector<std::string> out;
  for (const Suspect& s : d.suspects) {
    std::string n = std::string(to_string(s.kind)) + " " + s.host;
    if (s.kind == SuspectKind::Gpu) n += "/" + std::to_string(s.gpu);
    if (s.kind == SuspectKind::Pair) n += "~" + s.peer;
    out.push_back(n);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Every seed must name exactly `expected`; the failure message names the first seed that did not.
template <class Inject>
void expect_in_every_trial(const ClusterShape& shape, Inject inject, std::vector<std::string> expected) {
  std::sort(expected.begin(), expected.end());
  for (std::uint32_t seed = 1; seed <= kTrials; ++seed) {
    Observations obs = healthy_cluster(shape, seed);
    inject(obs);
    const Diagnosis d = attribute(obs);
    ASSERT_EQ(names(d), expected) << "seed " << seed;
    for (const Suspect& s : d.suspects) ASSERT_FALSE(s.evidence.empty()) << "seed " << seed;
  }
}

TEST(Attribution, HealthyClusterWithThreePercentNoiseNamesNoSuspect) {
  expect_in_every_trial({}, [](Observations&) {}, {});
  expect_in_every_trial({.nodes = 4, .gpus_per_node = 4}, [](Observations&) {}, {});
  expect_in_every_trial({.nodes = 16, .pairs = PairSchedule::Ring}, [](Observations&) {}, {});
}

TEST(Attribution, ABadGpuIsNamedWithHostAndIndexNotItsNode) {
  expect_in_every_trial({}, [](Observations& o) { testing::slow_gpu(o, 3, 5, 1.6); }, {"gpu gpu-3/5"});
  // Its node's collective waits for it: still the GPU, not the node.
  expect_in_every_trial({}, [](Observations& o) {
    testing::slow_gpu(o, 3, 5, 1.6);
    for (NodeFigure& n : o.nodes)
      if (n.host == "gpu-3") n.busbw_gbps *= 0.6;
  }, {"gpu gpu-3/5"});
}

TEST(Attribution, ANodeWhoseGpusAreAllSlowIsOneNodeSuspect) {
  expect_in_every_trial({}, [](Observations& o) { testing::slow_node(o, 5, 1.8); }, {"node gpu-5"});
}

TEST(Attribution, ABadNicIsNamedOnceNotAsEachOfItsPairs) {
  expect_in_every_trial({}, [](Observations& o) { testing::slow_nic(o, 2, 2.0); }, {"nic gpu-2"});
  expect_in_every_trial({.nodes = 4}, [](Observations& o) { testing::slow_nic(o, 1, 2.0); }, {"nic gpu-1"});
  expect_in_every_trial({.nodes = 12, .pairs = PairSchedule::Ring}, [](Observations& o) { testing::slow_nic(o, 7, 3.0); },
                        {"nic gpu-7"});
}

TEST(Attribution, ASingleSlowPairPointsAtThePathBetweenThem) {
  expect_in_every_trial({}, [](Observations& o) { testing::slow_pair(o, 1, 4, 2.5); }, {"pair gpu-1~gpu-4"});
  expect_in_every_trial({.nodes = 10, .pairs = PairSchedule::Ring}, [](Observations& o) { testing::slow_pair(o, 4, 5, 2.5); },
                        {"pair gpu-4~gpu-5"});
}

TEST(Attribution, TwoBadNodesAreBothNamed) {
  expect_in_every_trial({}, [](Observations& o) {
    testing::slow_nic(o, 2, 2.0);
    testing::slow_nic(o, 6, 1.5);
  }, {"nic gpu-2", "nic gpu-6"});
  expect_in_every_trial({}, [](Observations& o) {
    testing::slow_node(o, 0, 1.7);
    testing::slow_node(o, 7, 1.7);
  }, {"node gpu-0", "node gpu-7"});
}

TEST(Attribution, FaultsInDifferentStagesAreNamedTogether) {
  expect_in_every_trial({}, [](Observations& o) {
    testing::slow_gpu(o, 1, 0, 2.0);
    testing::slow_nic(o, 4, 2.0);
    testing::slow_pair(o, 2, 6, 3.0);
  }, {"gpu gpu-1/0", "nic gpu-4", "pair gpu-2~gpu-6"});
}

TEST(Attribution, EvidenceCarriesFigureMedianAndLimit) {
  Observations o = healthy_cluster({.noise = 0}, 1);
  testing::slow_nic(o, 3, 4.0);  // 11.25 GB/s of a 50 GB/s path
  const Diagnosis d = attribute(o);
  ASSERT_EQ(d.suspects.size(), 1u);
  const Suspect& s = d.suspects[0];
  EXPECT_DOUBLE_EQ(s.figure, 11.25);
  EXPECT_DOUBLE_EQ(s.median, 45);
  EXPECT_DOUBLE_EQ(s.limit, 50);
  ASSERT_EQ(s.evidence.size(), 2u);
  EXPECT_NE(s.evidence[0].find("every one of its 7 pair(s) is slow"), std::string::npos) << s.evidence[0];
  EXPECT_NE(s.evidence[1].find("22 % of the path's physical limit"), std::string::npos) << s.evidence[1];
}

TEST(Attribution, TwoNodesJudgePairsOnlyByBaselineAndSaySo) {
  Observations o = healthy_cluster({.nodes = 2, .noise = 0}, 1);
  ASSERT_EQ(o.pairs.size(), 1u);
  o.pairs[0].gbps = 30;
  Diagnosis d = attribute(o);
  EXPECT_TRUE(d.suspects.empty());
  ASSERT_EQ(d.notes.size(), 2u);  // two nodes: neither the node stage nor the pairs have a median
  EXPECT_NE(d.notes[1].find("cannot be pinned"), std::string::npos) << d.notes[1];
  o.pairs[0].baseline_gbps = 45;
  d = attribute(o);
  EXPECT_EQ(names(d), std::vector<std::string>{"pair gpu-0~gpu-1"});
  EXPECT_NE(d.suspects[0].evidence[0].find("33 % worse than its own baseline"), std::string::npos)
      << d.suspects[0].evidence[0];
}

TEST(Attribution, AClusterUniformlyFarBelowItsLimitsIsANoteNotSuspects) {
  Observations o = healthy_cluster({}, 7);
  for (PairFigure& p : o.pairs) p.gbps *= 0.4;  // 18 GB/s on 50 GB/s paths, all alike
  const Diagnosis d = attribute(o);
  EXPECT_TRUE(d.suspects.empty());
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_NE(d.notes[0].find("network stage: the cluster's median"), std::string::npos) << d.notes[0];
}

}  // namespace
}  // namespace cctune::diagnose
