#pragma once
// Fixture locations shared by the topology tests.
#include <string>

namespace cctune::topo::test {

inline std::string fixture(const std::string& name) {
  return std::string(CCTUNE_SOURCE_DIR) + "/tests/fixtures/topology/" + name;
}

}  // namespace cctune::topo::test
