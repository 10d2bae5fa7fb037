// SupervisorTick's one JSON form (runtime/supervisor_tick.hpp): what each supervisor sends at a
// group's agreement, read back exactly, and a malformed tick is one line naming the field.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "runtime/supervisor_tick.hpp"
#include "support/thrown.hpp"

namespace cctune::runtime {
namespace {

using nlohmann::json;

SupervisorTick sample_tick() {
  return {0, ErrorRecord{ErrorKind::Environment, "worker 3 lost its GPU", "check nvidia-smi", {}}, false, "uid-bytes"};
}

std::string error_of(const json& j) {
  return testing::thrown_message<UsageError>([&] { j.get<SupervisorTick>(); });
}

TEST(SupervisorTickJson, EveryFieldReadsBack) {
  const SupervisorTick back = json::parse(json(sample_tick()).dump()).get<SupervisorTick>();
  EXPECT_EQ(back.priority, 0);
  EXPECT_EQ(back.error.kind, ErrorKind::Environment);
  EXPECT_EQ(back.error.message, "worker 3 lost its GPU");
  EXPECT_EQ(back.error.fix, "check nvidia-smi");
  EXPECT_FALSE(back.done);
  EXPECT_EQ(back.uid, "uid-bytes");
  const SupervisorTick quiet = json(SupervisorTick{9, {}, true, ""}).get<SupervisorTick>();
  EXPECT_EQ(quiet.priority, 9);
  EXPECT_TRUE(quiet.done);
  EXPECT_TRUE(quiet.uid.empty());
}

TEST(SupervisorTickJson, AMalformedTickIsOneLineNamingTheField) {
  json bad = sample_tick();
  bad["done"] = 1;
  EXPECT_EQ(error_of(bad), "supervisor tick.done: expected a boolean, got an integer");
  bad = sample_tick();
  bad["priority"] = 12;
  EXPECT_EQ(error_of(bad), "supervisor tick.priority is 12, not in [0, 9]");
  bad = sample_tick();
  bad.erase("uid");
  EXPECT_EQ(error_of(bad), "supervisor tick.uid is missing");
  bad = sample_tick();
  bad["error"] = "text";
  EXPECT_EQ(error_of(bad), "supervisor tick.error: expected an object, got a string");
}

}  // namespace
}  // namespace cctune::runtime
