// The SAX value budget shared by every outside JSON document (core/json_budget.hpp): refused
// before a tree is built, naming the document and the limit; sections counted apart.
#include "core/json_budget.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace cctune {
namespace {

TEST(JsonBudget, RefusesPastItsValuesContainersAndSections) {
  const JsonBudget b{10, 3, {"net"}, 2};
  EXPECT_NO_THROW(check_json_budget(R"({"a":[1,2,3],"net":{"x":1}})", "f.json", b, "a test file holds", "fix"));
  try {
    check_json_budget("[{},{},{}]", "f.json", b, "a test file holds", "pass a smaller one");
    ADD_FAILURE() << "accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("f.json holds more than 3 objects and arrays"), std::string::npos) << e.what();
  }
  EXPECT_THROW(check_json_budget("[1,2,3,4,5,6,7,8,9,10,11]", "f.json", b, "k", "fix"), UsageError);
  EXPECT_THROW(check_json_budget(R"({"net":[1,2,3]})", "f.json", b, "k", "fix"), UsageError);
  EXPECT_NO_THROW(check_json_budget("not json", "f.json", b, "k", "fix"));  // the parser reports that
}

}  // namespace
}  // namespace cctune
