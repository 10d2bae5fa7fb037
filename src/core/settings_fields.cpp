#include "core/settings_fields.hpp"

#include <nlohmann/json.hpp>

#include "core/json_fields.hpp"

namespace cctune {

namespace {
constexpr const char* fix = "pass a results.json written by cctune sweep (its meta.settings is the resolved plan)";

// meta.settings of a file written before settings were recorded may be absent or null.
bool recorded(const nlohmann::json& settings) { return !settings.is_null(); }
}  // namespace

std::string settings_test_mode(const nlohmann::json& settings) {
  if (!recorded(settings)) return {};
  return JsonFields(settings, "meta.settings", fix).get_optional<std::string>("test_mode").value_or("");
}

std::string settings_space_name(const nlohmann::json& settings) {
  if (!recorded(settings)) return {};
  const JsonFields f(settings, "meta.settings", fix);
  if (!f.has("space") || f.raw().at("space").is_null()) return {};
  if (f.raw().at("space").is_string()) return f.get<std::string>("space");
  return f.object("space").get_optional<std::string>("name").value_or("");
}

}  // namespace cctune
