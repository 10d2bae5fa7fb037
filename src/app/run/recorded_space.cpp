#include "app/run/recorded_space.hpp"

#include <utility>

#include "core/json_fields.hpp"

namespace cctune::app {
namespace {

// meta.settings.space as space_settings writes it; only its name has readers (tune's profile).
struct RecordedSpace {
  std::string name;
};

RecordedSpace read_space(const nlohmann::json& settings) {
  if (settings.is_null()) return {};  // a file written before settings were recorded
  const JsonFields f(settings, "meta.settings", "pass a results.json written by cctune sweep (its meta.settings is the resolved plan)");
  if (!f.has("space") || f.raw().at("space").is_null()) return {};
  if (f.raw().at("space").is_string()) return {f.get<std::string>("space")};
  return {f.object("space").get_optional<std::string>("name").value_or("")};
}

}  // namespace

std::string space_name_of(const Results& results) { return results.meta.settings.get<RecordedSpace>(read_space).name; }

void seed_space_name(ResultSection& settings, std::string name) { settings.seed(RecordedSpace{std::move(name)}); }

}  // namespace cctune::app
