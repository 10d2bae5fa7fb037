// meta.settings read by field: absent is empty, mistyped is one line naming the field.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/results.hpp"
#include "core/settings_fields.hpp"

namespace cctune {
namespace {

using nlohmann::json;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.what_only();
  }
  return "no error";
}

TEST(SettingsFields, ReadsTestModeAndSpaceName) {
  const json settings = {{"test_mode", "shared-gpu"}, {"space", {{"name", "default"}, {"source", "builtin"}}}};
  EXPECT_EQ(settings_test_mode(settings), "shared-gpu");
  EXPECT_EQ(settings_space_name(settings), "default");
  EXPECT_EQ(settings_space_name(json{{"space", "mine"}}), "mine");
  // Absent: a performance run without a space; settings of old files may be missing.
  EXPECT_EQ(settings_test_mode(json::object()), "");
  EXPECT_EQ(settings_space_name(json::object()), "");
  EXPECT_EQ(settings_test_mode(json()), "");
}

TEST(SettingsFields, MistypedFieldIsOneLineNamingIt) {
  EXPECT_EQ(error_of([] { settings_test_mode(json{{"test_mode", 1}}); }), "meta.settings.test_mode: expected a string, got an integer");
  EXPECT_EQ(error_of([] { settings_space_name(json{{"space", {{"name", true}}}}); }),
            "meta.settings.space.name: expected a string, got a boolean");
  EXPECT_EQ(error_of([] { settings_space_name(json{{"space", 5}}); }), "meta.settings.space: expected an object, got an integer");
  EXPECT_EQ(error_of([] { settings_test_mode(json::array()); }), "meta.settings: expected an object, got an array");
}

TEST(SettingsFields, TestModeOfResultsReadsSettingsThenRuns) {
  Results r;
  r.meta.settings = {{"test_mode", "shared-gpu"}};
  EXPECT_EQ(test_mode_of(r), "shared-gpu");
  r.meta.settings = json::object();
  r.runs.push_back({});
  r.runs.back().test_mode = "shared-gpu";
  EXPECT_EQ(test_mode_of(r), "shared-gpu");
}

}  // namespace
}  // namespace cctune
