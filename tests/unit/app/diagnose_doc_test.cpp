// cctune diagnose's document: judging its figures (probe and collective pairs apart, merged),
// stragglers as GPU suspects, baselines, the JSON round trip, the refusal of another
// cluster's baseline, and the verdict in text and HTML.
#include <gtest/gtest.h>

#include <algorithm>

#include "app/diagnose/diagnosis_doc.hpp"
#include "core/error.hpp"

namespace cctune::app::diagnose {
namespace {

namespace dg = cctune::diagnose;

// 4 nodes, all 6 pairs; node n2's link at a quarter in both the probe and the collective.
DiagnosisDoc four_nodes(double slow = 0.25) {
  DiagnosisDoc d;
  d.backend = "mpi";
  d.hosts = {"n0", "n1", "n2", "n3"};
  d.gpus_per_node = 1;
  d.latency_bytes = 8;
  d.bandwidth_bytes = 1 << 20;
  d.pairs = "all";
  for (const auto& h : d.hosts) d.nodes.push_back({h, 1, 0, 0, 0});
  const double jitter[] = {1.0, 1.02, 0.98, 1.01, 0.99, 1.03};
  int k = 0;
  for (int a = 0; a < 4; ++a)
    for (int b = a + 1; b < 4; ++b) {
      const double f = (a == 2 || b == 2 ? slow : 1.0) * jitter[k++];
      PairResult p;
      p.host_a = d.hosts[a];
      p.host_b = d.hosts[b];
      p.probe_gbps = 0.047 * f;
      p.busbw_gbps = 0.025 * f;
      p.latency_us = 50;
      d.pairs_measured.push_back(p);
    }
  return d;
}

TEST(DiagnoseDoc, SlowLinkIsOneNicSuspectWithBothStagesEvidence) {
  DiagnosisDoc d = four_nodes();
  d.diagnosis = judge(d, nullptr);
  ASSERT_EQ(d.diagnosis.suspects.size(), 1u);
  const dg::Suspect& s = d.diagnosis.suspects[0];
  EXPECT_EQ(s.kind, dg::SuspectKind::Nic);
  EXPECT_EQ(s.host, "n2");
  ASSERT_EQ(s.evidence.size(), 2u);
  EXPECT_EQ(s.evidence[0].rfind("pair probe: ", 0), 0u) << s.evidence[0];
  EXPECT_EQ(s.evidence[1].rfind("pair mpi: ", 0), 0u) << s.evidence[1];
  EXPECT_NE(format_diagnosis(d).find("verdict: 1 suspect(s): NIC/link of n2"), std::string::npos);
  EXPECT_NE(diagnosis_html(d).find("data-verdict=\"suspects\""), std::string::npos);
}

// Every pair probe of n2 used its eth1: the suspect names that NIC, in text and JSON (a host
// with several NICs is otherwise named without the one to check).
TEST(DiagnoseDoc, ASlowLinkNamesTheNicItsProbesUsed) {
  DiagnosisDoc d = four_nodes();
  for (PairResult& p : d.pairs_measured) {
    p.probe_nic_a = p.host_a == "n2" ? "eth1" : "eth0";
    p.probe_nic_b = p.host_b == "n2" ? "eth1" : "eth0";
  }
  d.diagnosis = judge(d, nullptr);
  ASSERT_EQ(d.diagnosis.suspects.size(), 1u);
  EXPECT_EQ(d.diagnosis.suspects[0].nic, "eth1");
  EXPECT_NE(format_diagnosis(d).find("verdict: 1 suspect(s): NIC/link eth1 of n2"), std::string::npos);
  EXPECT_EQ(to_json(d)["suspects"][0]["nic"], "eth1");
}

// Probes that used different NICs of the host (or none known) name no NIC: null in JSON.
TEST(DiagnoseDoc, NoNicIsNamedWhereTheProbesDifferOrSayNothing) {
  DiagnosisDoc d = four_nodes();
  int k = 0;
  for (PairResult& p : d.pairs_measured)
    if (p.host_a == "n2" || p.host_b == "n2") (p.host_a == "n2" ? p.probe_nic_a : p.probe_nic_b) = k++ ? "eth0" : "eth1";
  d.diagnosis = judge(d, nullptr);
  ASSERT_EQ(d.diagnosis.suspects.size(), 1u);
  EXPECT_EQ(d.diagnosis.suspects[0].nic, "");
  EXPECT_TRUE(to_json(d)["suspects"][0]["nic"].is_null());
  d = four_nodes();
  d.diagnosis = judge(d, nullptr);
  EXPECT_TRUE(to_json(d)["suspects"][0]["nic"].is_null());
}

// The CI failure (2026-11-26): under load a healthy pair's MPI busbw read 16-23 % below the
// pairs' median twice, while the pair probe had the path at full speed.
TEST(DiagnoseDoc, APathTheProbeClearedIsANoteNotASuspect) {
  DiagnosisDoc d = four_nodes();
  d.pairs_measured[0].busbw_gbps *= 0.8;  // n0 <-> n1, collective only
  d.diagnosis = judge(d, nullptr);
  ASSERT_EQ(d.diagnosis.suspects.size(), 1u);
  EXPECT_EQ(d.diagnosis.suspects[0].kind, dg::SuspectKind::Nic);
  EXPECT_EQ(d.diagnosis.suspects[0].host, "n2");
  const auto note = std::find_if(d.diagnosis.notes.begin(), d.diagnosis.notes.end(),
                                 [](const std::string& n) { return n.find("n0 <-> n1") != std::string::npos; });
  ASSERT_NE(note, d.diagnosis.notes.end());
  EXPECT_EQ(note->rfind("pair mpi: ", 0), 0u) << *note;
  EXPECT_NE(note->find("pair probe found the path between them at full speed"), std::string::npos) << *note;
}

TEST(DiagnoseDoc, APathSlowInTheProbeTooIsNamed) {
  DiagnosisDoc d = four_nodes();
  d.pairs_measured[0].busbw_gbps *= 0.8;
  d.pairs_measured[0].probe_gbps *= 0.6;
  d.diagnosis = judge(d, nullptr);
  ASSERT_EQ(d.diagnosis.suspects.size(), 2u);
  EXPECT_EQ(d.diagnosis.suspects[1].kind, dg::SuspectKind::Pair);
  EXPECT_EQ(d.diagnosis.suspects[1].host, "n0");
  EXPECT_EQ(d.diagnosis.suspects[1].peer, "n1");
  EXPECT_EQ(d.diagnosis.suspects[1].evidence.size(), 2u);  // the probe's and the collective's
}

TEST(DiagnoseDoc, WithoutAProbeTheCollectiveAloneNamesAPath) {
  DiagnosisDoc d = four_nodes();
  for (PairResult& p : d.pairs_measured) p.probe_gbps = 0;  // --probe none
  d.pairs_measured[0].busbw_gbps *= 0.8;
  d.diagnosis = judge(d, nullptr);
  ASSERT_EQ(d.diagnosis.suspects.size(), 2u);
  EXPECT_EQ(d.diagnosis.suspects[1].kind, dg::SuspectKind::Pair);
}

TEST(DiagnoseDoc, HealthyClusterHasNoSuspects) {
  DiagnosisDoc d = four_nodes(1.0);
  d.diagnosis = judge(d, nullptr);
  EXPECT_TRUE(d.diagnosis.suspects.empty());
  EXPECT_NE(format_diagnosis(d).find("verdict: no suspects"), std::string::npos);
  EXPECT_NE(diagnosis_html(d).find("data-verdict=\"clean\""), std::string::npos);
}

TEST(DiagnoseDoc, StragglerIsAGpuSuspectWithHostAndIndex) {
  DiagnosisDoc d = four_nodes(1.0);
  d.stragglers.push_back({"n1", 5, 5, 92, 40, 120, 2, 2});
  d.diagnosis = judge(d, nullptr);
  ASSERT_EQ(d.diagnosis.suspects.size(), 1u);
  EXPECT_EQ(d.diagnosis.suspects[0].kind, dg::SuspectKind::Gpu);
  EXPECT_EQ(d.diagnosis.suspects[0].host, "n1");
  EXPECT_EQ(d.diagnosis.suspects[0].gpu, 5);
  EXPECT_NE(verdict(d).find("GPU 5 of n1"), std::string::npos);
}

TEST(DiagnoseDoc, BaselineJudgesTheSinglePairOfTwoNodes) {
  DiagnosisDoc good;
  good.backend = "mpi";
  good.hosts = {"a", "b"};
  PairResult p;
  p.host_a = "a";
  p.host_b = "b";
  p.busbw_gbps = 10;
  good.pairs_measured.push_back(p);
  DiagnosisDoc now = good;
  EXPECT_TRUE(judge(now, nullptr).suspects.empty());  // two nodes: no median to compare with
  now.pairs_measured[0].busbw_gbps = 7;
  const auto d = judge(now, &good);
  ASSERT_EQ(d.suspects.size(), 1u);
  EXPECT_EQ(d.suspects[0].kind, dg::SuspectKind::Pair);
  EXPECT_DOUBLE_EQ(d.suspects[0].baseline, 10);
}

TEST(DiagnoseDoc, JsonRoundTripKeepsFigures) {
  DiagnosisDoc d = four_nodes();
  d.gpus.push_back({"n0", 0, 12.5, 0.25});
  d.all_busbw_gbps = 0.01;
  d.diagnosis = judge(d, nullptr);
  const nlohmann::json j = to_json(d);
  EXPECT_EQ(j.at("schema"), "cctune.diagnosis/1");
  EXPECT_EQ(j.at("suspects").at(0).at("kind"), "nic");
  EXPECT_TRUE(j.at("suspects").at(0).at("gpu").is_null());
  const DiagnosisDoc back = parse_diagnosis(j, "test");
  EXPECT_EQ(back.hosts, d.hosts);
  ASSERT_EQ(back.pairs_measured.size(), 6u);
  EXPECT_DOUBLE_EQ(back.pairs_measured[2].busbw_gbps, d.pairs_measured[2].busbw_gbps);
  EXPECT_DOUBLE_EQ(back.gpus.at(0).time_us, 12.5);
  EXPECT_DOUBLE_EQ(back.all_busbw_gbps, 0.01);
  EXPECT_THROW(parse_diagnosis(nlohmann::json{{"schema", "cctune.results/2"}}, "x"), UsageError);
}

std::string refusal(const DiagnosisDoc& baseline, const DiagnosisDoc& now) {
  try {
    check_same_cluster(baseline, now);
  } catch (const UsageError& e) {
    return e.what_only();
  }
  return "";
}

TEST(DiagnoseDoc, BaselineFromAnotherClusterIsRefusedNamingTheDifference) {
  const DiagnosisDoc now = four_nodes();
  EXPECT_EQ(refusal(now, now), "");
  DiagnosisDoc other = now;
  other.hosts.pop_back();
  EXPECT_NE(refusal(other, now).find("3 node(s) there, 4 here"), std::string::npos);
  other = now;
  other.gpus_per_node = 8;
  EXPECT_NE(refusal(other, now).find("8 GPU(s) per node there, 1 here"), std::string::npos);
  other = now;
  other.hosts[3] = "elsewhere";
  EXPECT_NE(refusal(other, now).find("host n3 is not in it"), std::string::npos);
  other = now;
  other.bandwidth_bytes = 64 << 20;
  EXPECT_NE(refusal(other, now).find("sizes"), std::string::npos);
}

}  // namespace
}  // namespace cctune::app::diagnose
