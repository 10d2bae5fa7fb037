// The results' topology section read through its one accessor (issue #23): parsed once into
// the typed Topology, the profile's fingerprint taken from it, bad sections named by field.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/results_json.hpp"
#include "topology/paths.hpp"
#include "topology/topology_json.hpp"
#include "topology/topology_section.hpp"

namespace cctune::topo {
namespace {

Results tuning_fixture(const std::string& name) {
  return load_results(std::string(CCTUNE_SOURCE_DIR) + "/tests/fixtures/tuning/" + name);
}

std::string error_of(const Results& r) {
  try {
    topology_of(r);
  } catch (const UsageError& e) {
    return e.what_only();
  }
  return "no error";
}

Results with_topology(nlohmann::json section) {
  Results r;
  r.topology = ResultSection(std::move(section));
  return r;
}

TEST(TopologySection, ParsedOnceAndSharedByCopies) {
  const Results r = tuning_fixture("h200x8_allreduce.results.json");
  const Topology* t = topology_of(r);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(topology_of(r), t);  // the cached value, not a second parse
  const Results copy = r;
  EXPECT_EQ(topology_of(copy), t);
  EXPECT_EQ(single_group_fingerprint(*t), "9f2c4e");
  EXPECT_EQ(topology_of(Results{}), nullptr);
}

TEST(TopologySection, FingerprintOnlyForOneGroup) {
  nlohmann::json two_groups = tuning_fixture("h200x8_allreduce.results.json").topology.json();
  two_groups["groups"].push_back(two_groups["groups"][0]);
  two_groups["groups"][1]["fingerprint"] = "0123456789abcdef";
  const Results heterogeneous = with_topology(two_groups);
  ASSERT_NE(topology_of(heterogeneous), nullptr);
  ASSERT_EQ(topology_of(heterogeneous)->groups.size(), 2u);
  EXPECT_EQ(single_group_fingerprint(*topology_of(heterogeneous)), "");
}

// F15: a mistyped fingerprint is a one-line usage error naming the field, not nlohmann's
// type_error.302 (exit 1).
TEST(TopologySection, MistypedFieldsAreNamed) {
  const nlohmann::json good = tuning_fixture("h200x8_allreduce.results.json").topology.json();
  nlohmann::json bad = good;
  bad["groups"][0]["fingerprint"] = 0;
  EXPECT_EQ(error_of(with_topology(bad)), "topology.groups[0].fingerprint: expected a string, got an integer");
  bad["groups"][0] = "\u202e";
  EXPECT_EQ(error_of(with_topology(bad)), "topology.groups[0]: expected an object, got a string");
  bad["groups"] = 5;
  EXPECT_EQ(error_of(with_topology(bad)), "topology.groups: expected an array, got an integer");
  bad.erase("groups");  // a topology without node groups: no fingerprint, no error
  ASSERT_NE(topology_of(with_topology(bad)), nullptr);
  EXPECT_EQ(single_group_fingerprint(*topology_of(with_topology(bad))), "");
  EXPECT_EQ(error_of(with_topology(nlohmann::json::array({1}))), "topology: expected an object, got an array");
}

// A results fixture whose nodes carry the "derived" block: limits the raw fields do not give
// (no NVLink listed, PCIe rated below gen5 x16), as a hand-made or older file may hold them.
Results derived_fixture() { return load_results(std::string(CCTUNE_SOURCE_DIR) + "/tests/fixtures/results/nccl_tuned.json"); }

// Review N15: each field of another type, anywhere in the section (nodes, GPUs, links, NICs,
// ports, placements, groups, warnings), is named by its path in cctune's words; none escapes as
// nlohmann's "[json.exception.type_error.302] type must be string, but is number".
void mistype_each_field(const nlohmann::json& section, nlohmann::json& node, const std::string& path, int& checked) {
  const auto try_value = [&](const nlohmann::json& wrong) {
    const nlohmann::json saved = node;
    node = wrong;
    std::string error;
    EXPECT_NO_THROW(error = error_of(with_topology(section))) << path;
    EXPECT_EQ(error.find("json.exception"), std::string::npos) << path << ": " << error;
    if (error != "no error" && error.rfind("topology: schema", 0) != 0) {
      EXPECT_EQ(error.rfind(path, 0), 0u) << "the error does not name " << path << ": " << error;
    }
    node = saved;
    ++checked;
  };
  if (node.is_object()) {
    for (auto& [key, child] : node.items()) mistype_each_field(section, child, path + "." + key, checked);
    try_value(5);
  } else if (node.is_array()) {
    for (std::size_t i = 0; i < node.size(); ++i) mistype_each_field(section, node[i], path + "[" + std::to_string(i) + "]", checked);
    try_value("x");
  } else {
    try_value(node.is_string() ? nlohmann::json(7) : nlohmann::json("x"));
  }
}

TEST(TopologySection, EveryMistypedFieldIsNamedByItsPath) {
  int checked = 0;
  for (const Results& r : {derived_fixture(), tuning_fixture("h200x8_allreduce.results.json")}) {
    nlohmann::json section = r.topology.json();
    for (auto& [key, child] : section.items()) mistype_each_field(section, child, "topology." + key, checked);
  }
  EXPECT_GT(checked, 100);
  nlohmann::json section = derived_fixture().topology.json();
  section["nodes"][0]["hostname"] = 3;
  EXPECT_EQ(error_of(with_topology(section)), "topology.nodes[0].hostname: expected a string, got an integer");
}

TEST(TopologySection, DerivedValuesAreReadAsWritten) {
  const Results r = derived_fixture();
  const Topology* t = topology_of(r);
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->nodes.size(), 1u);
  const NodeTopology& node = t->nodes[0];
  ASSERT_TRUE(node.derived);
  ASSERT_EQ(node.derived->gpus.size(), 8u);
  EXPECT_EQ(node.derived->gpus[0].nearest_nics, std::vector<std::string>{"mlx5_0"});
  EXPECT_EQ(node.derived->gpus[7].nearest_nics, std::vector<std::string>{"mlx5_1"});
  EXPECT_DOUBLE_EQ(node.derived->gpus[3].nvlink_GBps, 450.0);
  EXPECT_DOUBLE_EQ(node.derived->gpus[3].pcie_GBps, 52.5);
  ASSERT_EQ(node.derived->nics.size(), 2u);
  EXPECT_EQ(node.derived->nics[1].name, "mlx5_1");
  EXPECT_DOUBLE_EQ(node.derived->nics[1].port_GBps, 50.0);
  EXPECT_DOUBLE_EQ(derive(node).gpus[3].nvlink_GBps, 0.0);  // what this build would compute: not what was measured against
}

// What to_json derives, node_from_json reads back: the writer and the reader name the same keys.
TEST(TopologySection, DerivedBlockRoundTrips) {
  Topology t = load_topology_file(std::string(CCTUNE_SOURCE_DIR) + "/tests/fixtures/topology/h200x4-live.json");
  ASSERT_FALSE(t.nodes.empty());
  for (NodeTopology& n : t.nodes) n.derived.reset();  // as probed
  const Topology back = topology_from_json(to_json(t));
  for (std::size_t i = 0; i < t.nodes.size(); ++i) {
    ASSERT_TRUE(back.nodes[i].derived);
    EXPECT_TRUE(*back.nodes[i].derived == derive(t.nodes[i])) << "node " << i;
    EXPECT_FALSE(back.nodes[i].derived->gpus.empty());
  }
}

TEST(TopologySection, MistypedDerivedFieldsAreNamed) {
  const nlohmann::json good = derived_fixture().topology.json();
  nlohmann::json bad = good;
  bad["nodes"][0]["derived"]["gpus"][2]["nvlink_GBps"] = "fast";
  EXPECT_EQ(error_of(with_topology(bad)), "topology.nodes[0].derived.gpus[2].nvlink_GBps: expected a number, got a string");
  bad = good;
  bad["nodes"][0]["derived"]["gpus"][0]["nearest_nics"] = {1};
  EXPECT_EQ(error_of(with_topology(bad)), "topology.nodes[0].derived.gpus[0].nearest_nics[0]: expected a string, got an integer");
  bad = good;
  bad["nodes"][0]["derived"]["nics"] = "mlx5_0";
  EXPECT_EQ(error_of(with_topology(bad)), "topology.nodes[0].derived.nics: expected an array, got a string");
  bad = good;
  bad["nodes"][0]["derived"] = 5;
  EXPECT_EQ(error_of(with_topology(bad)), "topology.nodes[0].derived: expected an object, got an integer");
  bad["nodes"][0].erase("derived");  // none: a gathered node, limits unknown
  ASSERT_NE(topology_of(with_topology(bad)), nullptr);
  EXPECT_FALSE(topology_of(with_topology(bad))->nodes[0].derived);
}

TEST(TopologySection, WrittenBackAsRead) {
  const Results r = tuning_fixture("h200x8_allreduce.results.json");
  topology_of(r);
  EXPECT_EQ(nlohmann::json(r).at("topology"), r.topology.json());
}

}  // namespace
}  // namespace cctune::topo
