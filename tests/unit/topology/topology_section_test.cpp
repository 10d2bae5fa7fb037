// The results' topology section read through its one accessor (issue #23): parsed once into
// the typed Topology, the profile's fingerprint taken from it, bad sections named by field.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/results_json.hpp"
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
  EXPECT_EQ(error_of(with_topology(nlohmann::json::array({1}))), "topology: the top level must be a JSON object");
}

TEST(TopologySection, WrittenBackAsRead) {
  const Results r = tuning_fixture("h200x8_allreduce.results.json");
  topology_of(r);
  EXPECT_EQ(nlohmann::json(r).at("topology"), r.topology.json());
}

}  // namespace
}  // namespace cctune::topo
