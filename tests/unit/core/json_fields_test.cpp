// Typed reads of JSON fields (core/json_fields.hpp, core/test_mode.cpp): the value, or
// one line naming the field and the fix.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/json_fields.hpp"
#include "core/results.hpp"

namespace cctune {
namespace {

using nlohmann::json;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const UsageError& e) {
    EXPECT_FALSE(e.fix().empty());
    return e.what_only();
  }
  return "no error";
}

TEST(JsonFields, ReadsEachTypeAndOptionals) {
  const json j = {{"n", 3}, {"big", 5000000000ULL}, {"x", 2.5}, {"s", "text"}, {"b", true}, {"none", nullptr}, {"o", {{"k", 1}}}};
  const JsonFields f(j, "sec", "the fix");
  EXPECT_EQ(f.get<int>("n"), 3);
  EXPECT_EQ(f.get<std::uint64_t>("big"), 5000000000ULL);
  EXPECT_EQ(f.get<std::uint64_t>("n"), 3u);  // built in code: a signed integer
  EXPECT_DOUBLE_EQ(f.get<double>("x"), 2.5);
  EXPECT_DOUBLE_EQ(f.get<double>("n"), 3.0);  // an integer is a number
  EXPECT_EQ(f.get<std::string>("s"), "text");
  EXPECT_TRUE(f.get<bool>("b"));
  EXPECT_FALSE(f.get_optional<int>("absent"));
  EXPECT_FALSE(f.get_optional<int>("none"));
  EXPECT_EQ(f.get_optional<std::string>("s"), "text");
  EXPECT_EQ(f.object("o").get<int>("k"), 1);
}

TEST(JsonFields, MissingFieldNamesItsPath) {
  const json j = {{"o", {{"k", 1}}}};
  const JsonFields f(j, "results.json net", "the fix");
  EXPECT_EQ(error_of([&] { f.get<int>("rounds"); }), "results.json net.rounds is missing");
  EXPECT_EQ(error_of([&] { f.object("o").get<std::string>("name"); }), "results.json net.o.name is missing");
}

TEST(JsonFields, WrongTypeNamesTheFieldAndBothTypes) {
  const json j = {{"n", "3"}, {"f", 1.5}, {"neg", -1}, {"big", 5000000000LL}, {"s", 7}, {"arr", {1, "x"}}, {"none", nullptr}};
  const JsonFields f(j, "net", "the fix");
  EXPECT_EQ(error_of([&] { f.get<int>("n"); }), "net.n: expected an integer, got a string");
  EXPECT_EQ(error_of([&] { f.get<int>("f"); }), "net.f: expected an integer, got a number");
  EXPECT_EQ(error_of([&] { f.get<std::uint64_t>("neg"); }), "net.neg: expected a non-negative integer, got an integer");
  EXPECT_EQ(error_of([&] { f.get<int>("big"); }), "net.big: expected an integer in range, got an integer");
  EXPECT_EQ(error_of([&] { f.get<std::string>("s"); }), "net.s: expected a string, got an integer");
  EXPECT_EQ(error_of([&] { f.get_optional<bool>("s"); }), "net.s: expected a boolean, got an integer");
  EXPECT_EQ(error_of([&] { f.get<double>("none"); }), "net.none: expected a number, got null");
  EXPECT_EQ(error_of([&] { f.object("arr"); }), "net.arr: expected an object, got an array");
  EXPECT_EQ(error_of([&] { f.element("arr", 1); }), "net.arr[1]: expected an object, got a string");
  EXPECT_EQ(error_of([&] { f.array("s"); }), "net.s: expected an array, got an integer");
  EXPECT_EQ(error_of([] { JsonFields(json("x"), "topology", "the fix"); }), "topology: expected an object, got a string");
}

// The test mode, core's own part of meta.settings (core/test_mode.cpp): absent is empty,
// mistyped is one line naming the field.
Results with_settings(const json& settings) {
  Results r;
  r.meta.settings = ResultSection(settings);
  return r;
}

TEST(SettingsTestMode, ReadsSettingsThenRuns) {
  EXPECT_EQ(test_mode_of(with_settings({{"test_mode", "shared-gpu"}, {"space", {{"name", "default"}}}})), "shared-gpu");
  // Absent: a performance run; settings of old files may be missing.
  EXPECT_EQ(test_mode_of(with_settings(json::object())), "");
  EXPECT_EQ(test_mode_of(with_settings(json())), "");
  Results r = with_settings(json::object());
  r.runs.push_back({});
  r.runs.back().test_mode = "shared-gpu";
  EXPECT_EQ(test_mode_of(r), "shared-gpu");
}

TEST(SettingsTestMode, MistypedFieldIsOneLineNamingIt) {
  EXPECT_EQ(error_of([] { test_mode_of(with_settings({{"test_mode", 1}})); }), "meta.settings.test_mode: expected a string, got an integer");
  EXPECT_EQ(error_of([] { test_mode_of(with_settings(json::array())); }), "meta.settings: expected an object, got an array");
  EXPECT_EQ(error_of([] { test_mode_of(with_settings("fast")); }), "meta.settings: expected an object, got a string");
}

}  // namespace
}  // namespace cctune
